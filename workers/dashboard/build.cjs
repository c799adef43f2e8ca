// Builds Medusa v1's admin dashboard (@medusajs/admin-ui, installed by `npm ci` from the lock file
// beside this file) as static files, for `commerce dashboard build` (workers/dashboard/__init__.py):
//
//     node build.cjs OUT_DIR BASE_PATH          (run in the folder the packages are installed in)
//
// The dashboard calls the API at a relative base ("/admin/..."), so one build serves this server
// under any host name. Progress goes to stdout, one line each tenth; every text file of the build
// gets .gz and .br twins for the server to send to clients that accept them.
"use strict";
const fs = require("fs");
const path = require("path");
const zlib = require("zlib");

const [outDir, basePath] = process.argv.slice(2);
if (!outDir || !basePath) {
  console.error("usage: node build.cjs OUT_DIR BASE_PATH");
  process.exit(2);
}
const appDir = process.cwd();
const say = (line) => process.stdout.write(line + "\n");

// @medusajs/admin-ui applies <appDir>/src/admin/webpack.config.js to its configuration: the hook
// through which the progress lines are added.
function writeProgressHook() {
  const dir = path.join(appDir, "src", "admin");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "webpack.config.js"), `
module.exports = (config, webpack) => {
  let shown = -1;
  config.plugins.push(new webpack.ProgressPlugin((share, message) => {
    const tenth = Math.floor(share * 10);
    if (tenth > shown) {
      shown = tenth;
      process.stdout.write("building dashboard: " + tenth * 10 + "%" + (message ? " (" + message + ")" : "") + "\\n");
    }
  }));
  return config;
};
`);
}

const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".json", ".svg", ".txt", ".map", ".ico", ".ttf", ".eot", ".otf"]);

function* files(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else if (entry.isFile()) yield full;
  }
}

function precompress(dir) {
  let count = 0;
  for (const file of [...files(dir)]) {
    if (!COMPRESSIBLE.has(path.extname(file).toLowerCase())) continue;
    const body = fs.readFileSync(file);
    if (body.length < 1024) continue;
    fs.writeFileSync(file + ".gz", zlib.gzipSync(body, { level: 9 }));
    fs.writeFileSync(file + ".br", zlib.brotliCompressSync(body, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }));
    count += 1;
  }
  return count;
}

(async () => {
  const { build, clean } = require("@medusajs/admin-ui");
  const started = Date.now();
  writeProgressHook();
  await clean({ appDir, outDir });
  const result = await build({
    appDir, buildDir: outDir, plugins: [], reporting: "minimal",
    options: { path: basePath, backend: "/", outDir },
  });
  if (result.stats.hasErrors()) {
    console.error(result.stats.toString("errors-only"));
    process.exit(1);
  }
  say(`building dashboard: compressing`);
  const squeezed = precompress(outDir);
  say(`building dashboard: done in ${((Date.now() - started) / 1000).toFixed(0)} s (${squeezed} files compressed)`);
})().catch((error) => {
  console.error(error && error.stack ? error.stack : String(error));
  process.exit(1);
});
