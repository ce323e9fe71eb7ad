"""The HTTP side of ``pingvinas serve``: :class:`pingvinas.web.App` and the page as a Starlette app
(:func:`asgi_app`) on uvicorn (:class:`Server`). Both come with the ``web`` extra:
``pip install "pingvinas[web]"`` (from a source checkout: ``pip install ".[web]"``).

uvicorn's HTTP/1.1 parser (h11) frames every request by its ``Content-Length`` or chunks, so a
body the server refuses or ignores is never read as the next request on a kept-alive
connection; connections cost no thread (only the engine's moves run on worker threads); the
listen backlog is 2048. On top of that this module adds what a server on a person's machine
needs:

- A deadline: a client has ``request_timeout`` seconds from connecting (or from its previous
  answer) to send a request's headers, and as long again for its body; then 408 and the
  connection is closed. Idle kept-alive connections close after 5 s.
- ``Host`` must name this server (``localhost``, ``127.0.0.1`` or ``[::1]`` with the port) when it
  listens on a loopback address, so that a web page cannot reach it by DNS rebinding: 400
  otherwise. A server bound to another host explicitly answers to any name.
- A request that may change a game (any method but GET, HEAD and OPTIONS) from a page of
  another origin (its ``Origin`` header is not this server) is refused with 403. Programs that
  send no ``Origin`` are served.
- Every refusal is a JSON ``{"error": message}`` with its status: 400 for HTTP that cannot be
  parsed, 408, 413 for a body over 16 KiB (then the connection is closed), and the API's own
  (see :mod:`pingvinas.web`). A client that goes away mid-request is not an error.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import os
import socket
import sys
import threading
from collections.abc import Awaitable, Callable, Collection
from http import HTTPStatus
from typing import Any, Optional

try:
    import anyio
    import h11
    import uvicorn
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import JSONResponse, Response
    from uvicorn.protocols.http.h11_impl import H11Protocol
except ImportError as e:  # pragma: no cover - the message is tested in a child interpreter
    raise ImportError(
        f"pingvinas serve needs starlette and uvicorn ({e.name or e} is missing): "
        'pip install "pingvinas[web]" (from a source checkout: pip install ".[web]")'
    ) from e

from pingvinas.web import MAX_BODY, STATIC_FILES, ApiError, App, _static

__all__ = ["Server", "asgi_app", "client_key", "LOOPBACK_NAMES"]

#: The names a server on a loopback address answers to (with its port).
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
#: Connections waiting to be accepted (the standard library's server had 5).
BACKLOG = 2048
#: Methods that never change a game: allowed from any origin.
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")

#: API requests answered at once, each on a thread of its own (an engine move takes seconds).
WORKERS = 64

logger = logging.getLogger("pingvinas.web")


async def _on_daemon_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` on a new daemon thread. Not a pool's: their threads are joined at exit, so
    Ctrl-C would wait for every search in progress."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(result: Any, error: Optional[BaseException]) -> None:
        if future.done():  # cancelled: the server is stopping
            return
        if error is None:
            future.set_result(result)
        else:
            future.set_exception(error)

    def run() -> None:
        try:
            outcome: tuple[Any, Optional[BaseException]] = (fn(*args), None)
        except BaseException as e:  # handed to the awaiting task
            outcome = (None, e)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the loop is closed: the server has stopped, nobody waits
            pass

    threading.Thread(target=run, name="pingvinas-web", daemon=True).start()
    return await future


def client_key(address: Optional[str]) -> str:
    """Who a client is, for bounding its games: its IP address, an IPv6 client by its /64
    network (one machine often has a whole /64), an IPv4-mapped one by its IPv4 address."""
    if not address:
        return "local"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if not ip.is_loopback:
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _error(status: int, message: str, close: bool = False) -> JSONResponse:
    headers = {"Connection": "close"} if close else None
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def asgi_app(
    app: App,
    *,
    allowed_hosts: Optional[Collection[str]] = None,
    request_timeout: float = 10.0,
    quiet: bool = True,
) -> Callable[..., Awaitable[None]]:
    """The page and ``app``'s API as an ASGI application (every method reaches it, so that every
    refusal is the API's JSON). ``allowed_hosts``: the ``Host`` values served (``name:port``;
    None serves any); ``request_timeout``: seconds a body has to arrive; ``quiet=False`` logs
    each request to standard error."""
    hosts = None if allowed_hosts is None else {h.lower() for h in allowed_hosts}
    workers: Optional[asyncio.Semaphore] = None  # made in the server's loop, on first use

    async def read_body(request: Request) -> bytes:
        length = request.headers.get("content-length")  # h11 has checked that it is a number
        if length is not None and int(length) > MAX_BODY:
            raise ApiError(413, f"the body is too large (at most {MAX_BODY} bytes)")
        body = bytearray()
        with anyio.fail_after(request_timeout):
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_BODY:
                    raise ApiError(413, f"the body is too large (at most {MAX_BODY} bytes)")
        return bytes(body)

    async def answer(request: Request) -> Response:
        method, path = request.method, request.url.path
        values = request.headers.getlist("host")
        if len(values) != 1:  # RFC 9112, 3.2: exactly one (h11 checks too; other servers may not)
            return _error(400, "a request needs exactly one Host header", close=True)
        host = values[0].lower()
        if hosts is not None and host not in hosts:
            return _error(
                400,
                f"this server answers to {', '.join(sorted(hosts))}, not Host {host!r} "
                "(start it with --host to serve other names)",
                close=True,
            )
        origin = request.headers.get("origin")
        if method not in SAFE_METHODS and origin is not None and origin.lower() != f"http://{host}":
            return _error(
                403,
                f"requests from other pages may not change games (Origin {origin!r})",
                close=True,
            )
        if "content-length" in request.headers and "transfer-encoding" in request.headers:
            # h11 lets the chunks win (as RFC 9112 says); a sender meaning the length would see
            # the rest of its body read as a request: refuse both, and close (RFC 9112, 6.1).
            return _error(400, "a request may not have both Content-Length and chunks", close=True)
        try:
            # Every body is read (within the limits) so that none is left on the connection.
            body = await read_body(request)
        except ApiError as e:
            return _error(e.status, e.message, close=True)
        except TimeoutError:
            return _error(408, f"the body took over {request_timeout:g} s to arrive", close=True)
        except ClientDisconnect:
            return Response(status_code=400)  # the client is gone: nobody reads this
        if path == "/api" or path.startswith("/api/"):
            nonlocal workers
            workers = workers or asyncio.Semaphore(WORKERS)
            client = client_key(request.client and request.client.host)
            async with workers:
                status, data = await _on_daemon_thread(app.handle, method, path, body, client)
            headers = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
            if status == 200 and path.endswith("/record"):
                gid = path.split("/")[3]
                headers["Content-Disposition"] = f'attachment; filename="pingvinas-{gid}.json"'
            return JSONResponse(data, status_code=status, headers=headers)
        if method not in ("GET", "HEAD"):
            return _error(405, f"use GET here, not {method}")
        name = (
            "index.html"
            if path == "/"
            else path[len("/static/") :]
            if path.startswith("/static/")
            else ""
        )
        if name not in STATIC_FILES:
            return _error(404, f"not found: {path}")
        return Response(
            _static(name),
            media_type=STATIC_FILES[name],
            headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"},
        )

    async def endpoint(request: Request) -> Response:
        try:
            response = await answer(request)
        except asyncio.CancelledError:  # stopping, and the engine is still thinking
            response = _error(503, "the server is stopping", close=True)
        except Exception as e:  # a bug: answer, keep serving, and say what happened
            logger.exception("internal error on %s %s", request.method, request.url.path)
            response = _error(500, f"internal error: {type(e).__name__}: {e}")
        if not quiet:
            client = request.client.host if request.client else "-"
            print(
                f'{client} "{request.method} {request.url.path}" {response.status_code}',
                file=sys.stderr,
                flush=True,
            )
        return response

    async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":  # lifespan is off and websockets are not served
            return
        response = await endpoint(Request(scope, receive))
        await response(scope, receive, send)

    return application


class _Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for each request's headers (uvicorn has none:
    a client sending a byte now and then would hold its connection for ever), and its own
    refusals in JSON."""

    request_timeout = 10.0  # set per server (a subclass each)
    _deadline: Optional[asyncio.TimerHandle] = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()  # the next request's headers have as long

    def connection_lost(self, exc: Optional[Exception]) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        if not self.transport.is_closing():
            self._deadline = self.loop.call_later(self.request_timeout, self._deadline_passed)

    def _deadline_passed(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return  # a request is being answered: its body has its own deadline
        if self.conn.trailing_data[0]:  # part of a request's headers came
            self._refuse(408, f"the request took over {self.request_timeout:g} s to arrive")
        else:
            self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request h11 cannot parse (or headers over 16 KiB)."""
        self._refuse(400, "invalid HTTP request: malformed, ambiguous or too large")

    def _refuse(self, status: int, message: str) -> None:
        body = json.dumps({"error": message}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        try:
            reason = HTTPStatus(status).phrase.encode()
            out = self.conn.send(h11.Response(status_code=status, headers=headers, reason=reason))
            out = (out or b"") + (self.conn.send(h11.Data(data=body)) or b"")
            out += self.conn.send(h11.EndOfMessage()) or b""
            self.transport.write(out)
        except h11.LocalProtocolError:  # an answer was already under way: just close
            pass
        self.transport.close()


class Server:
    """``pingvinas serve``'s HTTP server for ``app``, bound and listening from construction (so
    a taken port raises ``OSError`` here) but serving only in :meth:`serve_forever`.

    ``request_timeout``: seconds a client has for a request's headers, and again for its body.
    ``allowed_hosts``: the ``Host`` values served; by default the loopback names with the port
    when ``host`` is a loopback address, and any otherwise (the server was bound to another
    host on purpose)."""

    def __init__(
        self,
        app: App,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        quiet: bool = False,
        request_timeout: float = 10.0,
        allowed_hosts: Optional[Collection[str]] = None,
    ) -> None:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
        try:
            if os.name == "posix":  # elsewhere SO_REUSEADDR would share a port in use
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
            sock.listen(BACKLOG)
        except BaseException:
            sock.close()
            raise
        self.socket = sock
        self.server_address: tuple[str, int] = sock.getsockname()[:2]
        bound = self.server_address[1]
        name = f"[{host}]" if ":" in host else host
        self.url = f"http://{name}:{bound}/"
        if allowed_hosts is None and _is_loopback(host):
            allowed_hosts = [f"{h}:{bound}" for h in LOOPBACK_NAMES]
            if bound == 80:
                allowed_hosts += LOOPBACK_NAMES
        self.allowed_hosts = allowed_hosts
        protocol = type("Protocol", (_Protocol,), {"request_timeout": request_timeout})
        config = uvicorn.Config(
            asgi_app(
                app, allowed_hosts=allowed_hosts, request_timeout=request_timeout, quiet=quiet
            ),
            http=protocol,
            ws="none",
            lifespan="off",
            # Quiet: not even "Cancel 1 running task(s)" on Ctrl-C during an engine move (the
            # request gets 503). Bugs in this module are logged by its own logger either way.
            log_level="critical" if quiet else "warning",
            access_log=False,  # asgi_app logs requests itself
            backlog=BACKLOG,
            timeout_keep_alive=5,
            timeout_graceful_shutdown=2,
            server_header=False,
        )
        self._server = uvicorn.Server(config)
        self._done = threading.Event()
        self._serving = False

    def serve_forever(self) -> None:
        """Serves until :meth:`shutdown` (or, in the main thread, Ctrl-C: then
        ``KeyboardInterrupt`` once the connections are closed)."""
        self._serving = True
        try:
            self._server.run(sockets=[self.socket])
        finally:
            self._done.set()

    def shutdown(self) -> None:
        """Stops :meth:`serve_forever` (called from another thread) and waits until it has."""
        self._server.should_exit = True
        if self._serving:
            self._done.wait()

    def server_close(self) -> None:
        """Closes the listening socket."""
        self.socket.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server_close()
