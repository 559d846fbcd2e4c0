// Preloaded into the web server beside peer-address-hook.cjs (nextStartArgs in lib/runtime/next-build.ts).
// The server keeps idle keep-alive connections 65 s (WEB_KEEP_ALIVE_TIMEOUT_MS), and a connection whose
// request was answered before its body was read (a 413 or 429) stays open while the sender stalls. On
// SIGTERM Next calls server.close(), which waits for every connection to end: such connections held a
// stopping server up to the keep-alive timeout. Once the server is closing, a connection is ended as soon
// as it is answering no request; the requests in flight are answered first, as before, with `Connection: close`,
// so that a client sending request after request on one connection (a long-polling `inbox listen`) cannot keep
// a stopping server up forever.
"use strict";
const http = require("node:http");
const https = require("node:https");

const PATCHED = Symbol.for("webhook-inbox.close-on-shutdown-hook");
const SOCKETS = Symbol("webhook-inbox.sockets");
const ANSWERING = Symbol("webhook-inbox.answering");
const RESPONSES = Symbol("webhook-inbox.responses");
const CLOSING = Symbol("webhook-inbox.closing");
const SWEEP_MS = 100;

for (const Server of [http.Server, https.Server]) {
  if (Server.prototype[PATCHED]) continue;
  const emit = Server.prototype.emit;
  Server.prototype.emit = function emitTracked(event, ...args) {
    if (event === "connection" && args[0]) {
      const socket = args[0];
      const sockets = (this[SOCKETS] ??= new Set());
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    } else if (event === "request" && args[0] && args[1] && args[0].socket) {
      const socket = args[0].socket;
      const response = args[1];
      socket[ANSWERING] = (socket[ANSWERING] ?? 0) + 1;
      const responses = (this[RESPONSES] ??= new Set());
      responses.add(response);
      response.once("close", () => {
        socket[ANSWERING] -= 1;
        responses.delete(response);
      });
      if (this[CLOSING]) response.shouldKeepAlive = false;
    }
    return emit.call(this, event, ...args);
  };
  const close = Server.prototype.close;
  Server.prototype.close = function closeWithoutWaitingOnIdle(...args) {
    const result = close.apply(this, args);
    this[CLOSING] = true;
    for (const response of this[RESPONSES] ?? []) if (!response.headersSent) response.shouldKeepAlive = false;
    const sweep = () => {
      for (const socket of this[SOCKETS] ?? []) if (!socket[ANSWERING]) socket.destroy();
    };
    sweep();
    const timer = setInterval(sweep, SWEEP_MS);
    timer.unref();
    this.once("close", () => clearInterval(timer));
    return result;
  };
  Server.prototype[PATCHED] = true;
}
