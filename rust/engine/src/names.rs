//! Rule enums named by one table each: `name()`, `Display` and `FromStr` read the same names.

/// `"a"`, `"a" or "b"`, `"a", "b" or "c"`: the names a parser expected, for error messages.
pub(crate) fn one_of(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// Implements `NAMES`, `name()`, [`std::fmt::Display`] and [`std::str::FromStr`] (exact names;
/// [`crate::error::Error::Parse`] otherwise) for a fieldless enum from one table of
/// `Variant => "name"` pairs.
macro_rules! named_enum {
    ($ty:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The name used in configs, JSON and by the Python API.
            pub const fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::error::Error;

            /// Reads a name of [`Self::NAMES`].
            fn from_str(text: &str) -> $crate::error::Result<$ty> {
                match text {
                    $($name => Ok($ty::$variant),)+
                    _ => Err($crate::error::Error::Parse(format!(
                        "{text:?}: expected {}",
                        $crate::names::one_of(<$ty>::NAMES)
                    ))),
                }
            }
        }
    };
}

pub(crate) use named_enum;

#[cfg(test)]
mod tests {
    use crate::fish::{Order, Phase, Placement};
    use crate::marathon::{Dir, Kind};

    #[test]
    fn names_round_trip() {
        for p in [Placement::OneFish, Placement::Any] {
            assert_eq!(p.to_string().parse::<Placement>(), Ok(p));
        }
        for o in [Order::RoundRobin, Order::Snake] {
            assert_eq!(o.to_string().parse::<Order>(), Ok(o));
        }
        for p in [Phase::Placement, Phase::Movement, Phase::Over] {
            assert_eq!(p.to_string().parse::<Phase>(), Ok(p));
        }
        for k in Kind::ALL {
            assert_eq!(k.to_string().parse::<Kind>(), Ok(k));
        }
        for i in 0..8 {
            let d = Dir::from_index(i);
            assert_eq!(d.to_string().parse::<Dir>(), Ok(d));
        }
        let err = "all".parse::<Placement>().unwrap_err().to_string();
        assert_eq!(err, r#""all": expected "one-fish" or "any""#);
        let err = "x".parse::<Phase>().unwrap_err().to_string();
        assert_eq!(err, r#""x": expected "placement", "movement" or "over""#);
    }
}
