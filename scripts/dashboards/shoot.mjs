// shoot.mjs DIST SHOTS — serves the built site DIST on 127.0.0.1 and takes a
// full-page screenshot of every page in headless Debian Chromium
// (playwright-core, /usr/bin/chromium). Fails on a page error, a failed
// request or a page whose charts did not render.
import {chromium} from "playwright-core";
import http from "node:http";
import fs from "node:fs";
import path from "node:path";

const [dist, shots] = process.argv.slice(2);
fs.mkdirSync(shots, {recursive: true});
const types = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json",
  ".svg": "image/svg+xml", ".png": "image/png", ".woff2": "font/woff2"};
const server = http.createServer((req, res) => {
  let p = decodeURIComponent(new URL(req.url, "http://x").pathname);
  if (p.endsWith("/")) p += "index";
  let file = path.join(dist, p);
  if (!path.extname(file) && fs.existsSync(file + ".html")) file += ".html";
  if (!file.startsWith(dist) || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, {"content-type": types[path.extname(file)] ?? "application/octet-stream"});
  fs.createReadStream(file).pipe(res);
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"]});
const page = await browser.newPage({viewport: {width: 1280, height: 900}});
const problems = [];
page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
page.on("console", (m) => m.type() === "error" && !/status of 404/.test(m.text()) && problems.push(`console: ${m.text()}`));
page.on("response", (r) => r.status() >= 400 && !r.url().endsWith("/favicon.ico") && problems.push(`HTTP ${r.status()}: ${r.url()}`));
page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
let failed = 0;
for (const name of ["index", "heap", "cpu", "trace", "traces"]) {
  problems.length = 0;
  await page.goto(`${base}/${name}`, {waitUntil: "networkidle"});
  await page.waitForTimeout(1500); // the runtime renders cells after load
  const charts = await page.locator("main svg[class^=plot], main figure svg").count();
  const tables = await page.locator("main form.inputs-3a86ea-table, main table").count();
  const errors = await page.locator(".observablehq--error").allInnerTexts();
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({path: file, fullPage: true});
  const bad = problems.length + errors.length > 0 || (name !== "index" && charts + tables === 0);
  if (bad) failed++;
  console.log(`${bad ? "FAIL" : "ok  "} ${name}: ${charts} charts, ${tables} tables -> ${file}`);
  for (const p of [...problems, ...errors]) console.log(`     ${p}`);
}
await browser.close();
server.close();
process.exit(failed ? 1 : 0);
