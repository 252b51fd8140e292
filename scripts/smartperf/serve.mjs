// serve.mjs — a small HTTPS server for SmartPerf-Host's built dist/ and our databases.
//
// Used by check.mjs in-process; also runnable by hand to look at a database in a browser:
//   node scripts/smartperf/serve.mjs DIST_DIR [PORT] [DB...]
// prints the UI's URL and one ?link=true&trace=... URL per database.
//
// Layout (the UI's own Go server serves it under /application/ too):
//   /application/              dist/ (index.html, bundles, sql-wasm.*, doc/, ...)
//   /application/serverconfig  GET: dist/server-config.json (the UI asks for it at start)
//   /application/logger        POST: accepted and dropped (the UI logs each opened file)
//   /traces/<n>/<basename>     the n-th database given to start()
// Every response carries Cross-Origin-Opener-Policy: same-origin and
// Cross-Origin-Embedder-Policy: require-corp (the UI needs cross-origin isolation), text
// types carry charset=utf-8 (index.html declares none), .wasm is application/wasm.
// TLS: a self-signed certificate for 127.0.0.1 made with openssl into the cache directory.
import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.svg': 'image/svg+xml; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.db': 'application/octet-stream',
  '.map': 'application/json; charset=utf-8',
};

export function ensureCert(dir) {
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  if (!fs.existsSync(key) || !fs.existsSync(cert)) {
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '3650',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout', key, '-out', cert], { stdio: 'ignore' });
  }
  return { key: fs.readFileSync(key), cert: fs.readFileSync(cert) };
}

// start({dist, dbs: [paths], certDir, port, append}) → {origin, appUrl, traceUrl(i), notFound: [], close()}
// append maps a URL path to text served after that file's content (check.mjs appends its SQL
// hook to /application/sql-wasm.js this way; the files in dist/ are never changed).
export function start({ dist, dbs = [], certDir, port = 0, host = '127.0.0.1', append = {} }) {
  const distRoot = path.resolve(dist);
  const notFound = [];
  const sendFile = (res, file, head, extra) => {
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('not found');
        return;
      }
      const tail = extra ? Buffer.from('\n' + extra + '\n') : null;
      res.writeHead(200, {
        'Content-Type': TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream',
        'Content-Length': st.size + (tail ? tail.length : 0),
      });
      if (head) {
        res.end();
        return;
      }
      const rs = fs.createReadStream(file);
      if (tail) {
        rs.pipe(res, { end: false });
        rs.on('end', () => res.end(tail));
      } else {
        rs.pipe(res);
      }
    });
  };
  const server = https.createServer(ensureCert(certDir), (req, res) => {
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'no-cache');
    let url;
    try {
      url = new URL(req.url, 'https://x');
    } catch {
      res.writeHead(400).end();
      return;
    }
    const p = decodeURIComponent(url.pathname);
    const head = req.method === 'HEAD';
    if (p === '/' || p === '/application') {
      res.writeHead(302, { Location: '/application/' }).end();
      return;
    }
    if (p === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (p === '/application/serverconfig') {
      sendFile(res, path.join(distRoot, 'server-config.json'), head);
      return;
    }
    if (p === '/application/logger') {
      req.resume();
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('ok');
      return;
    }
    const m = /^\/traces\/(\d+)\/[^/]+$/.exec(p);
    if (m) {
      const db = dbs[Number(m[1])];
      if (db) {
        sendFile(res, db, head);
        return;
      }
    }
    if (p.startsWith('/application/')) {
      let rel = p.slice('/application/'.length) || 'index.html';
      const file = path.resolve(distRoot, rel);
      if (file === distRoot || file.startsWith(distRoot + path.sep)) {
        fs.stat(file, (err, st) => {
          if (err || !st.isFile()) {
            notFound.push(p);
            res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
          } else {
            sendFile(res, file, head, append[p]);
          }
        });
        return;
      }
    }
    notFound.push(p);
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const origin = `https://${host}:${server.address().port}`;
      resolve({
        origin,
        appUrl: `${origin}/application/`,
        traceUrl: (i) => `${origin}/traces/${i}/${encodeURIComponent(path.basename(dbs[i]))}`,
        notFound,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dist, port, ...dbs] = process.argv.slice(2);
  if (!dist) {
    console.error('usage: node serve.mjs DIST_DIR [PORT] [DB...]');
    process.exit(2);
  }
  const here = path.dirname(fileURLToPath(import.meta.url));
  const certDir = path.join(here, '..', '..', '.cache', 'smartperf', 'cert');
  const s = await start({ dist, dbs: dbs.map((d) => path.resolve(d)), certDir, port: Number(port || 0) });
  console.log(`SmartPerf-Host: ${s.appUrl}`);
  dbs.forEach((d, i) => console.log(`${d}: ${s.appUrl}?link=true&trace=${encodeURIComponent(s.traceUrl(i))}`));
}
