// Preloaded into Medusa (node --require): marks each request as having reached it through a
// TLS-terminating proxy (X-Forwarded-Proto: https), as a production Medusa is deployed. With
// NODE_ENV=production Medusa's session cookie is `secure`, and express-session (trust proxy 1)
// only issues it on such a request; without this the cookie workload would measure 401s.
const http = require("http")
const emit = http.Server.prototype.emit
http.Server.prototype.emit = function (event, req, ...rest) {
  if (event === "request" && !req.headers["x-forwarded-proto"]) {
    req.headers["x-forwarded-proto"] = "https"
  }
  return emit.call(this, event, req, ...rest)
}
