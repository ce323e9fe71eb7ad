"""The engine protocol: players in any language over stdin and stdout (``docs/protocol.md``).

:mod:`~pingvinas.playing.protocol.grammar` parses and formats the lines of both sides;
:mod:`~pingvinas.playing.protocol.engine` is the engine's side (``run_engine``, behind
``pingvinas engine``); :mod:`~pingvinas.playing.protocol.driver` the driver's (``EngineAgent``,
behind ``"cmd:COMMAND"`` agents).
"""
