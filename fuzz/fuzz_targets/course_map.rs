//! Course maps up to 128 KiB (and beyond): read or refused cleanly and quickly, never a panic
//! or a large allocation; a course that reads writes a map that reads back to the same course.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pingvinas_engine::marathon::Course;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(course) = Course::parse(&text) {
        let again = Course::parse(&course.to_map()).expect("a written map reads back");
        assert_eq!(again.to_map(), course.to_map());
        assert_eq!(again.coords(), course.coords());
    }
});
