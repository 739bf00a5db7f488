// Graft's kept sessions, in the browser's IndexedDB: nothing leaves the machine.
// The page (src/platform/sessions.rs) calls these; README "Sessions" says what is
// kept. Two stores, both keyed by the session's id:
// - "sessions": {id, name, saved, open, log, view}: the open request that brought
//   the model, its edit log (each edit's JSON) and the view (the URL fragment);
// - "files": {id, infos, blobs}: each chosen file's name, size and fingerprint, and
//   the files themselves when they fit the limit the page gives (else null).

const NAME = "graft";
const VERSION = 1;
let opening = null;

function db() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const request = indexedDB.open(NAME, VERSION);
      request.onupgradeneeded = () => {
        const d = request.result;
        for (const store of ["sessions", "files"]) {
          if (!d.objectStoreNames.contains(store)) d.createObjectStore(store, { keyPath: "id" });
        }
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => {
        opening = null;
        reject(request.error);
      };
    });
  }
  return opening;
}

function finished(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error || new Error("the write was aborted"));
  });
}

function result(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

// Keeps (or replaces) a session's record; `saved` is set to now.
export async function save(record) {
  record.saved = Date.now();
  const tx = (await db()).transaction("sessions", "readwrite");
  tx.objectStore("sessions").put(record);
  await finished(tx);
}

// A file's fingerprint: SHA-256 of its size and of samples of it (all of a file up
// to 4 MiB; else its first and last MiB and 14 slices of 64 KiB between), so that
// a file of gigabytes is checked without reading it whole. Without SubtleCrypto
// (a page not served from a secure origin) the size and modification time stand in.
export async function fingerprint(file) {
  const MiB = 1 << 20;
  const size = file.size;
  if (!globalThis.crypto || !crypto.subtle) return `size ${size}, modified ${file.lastModified}`;
  const parts = [String(size)];
  if (size <= 4 * MiB) {
    parts.push(file);
  } else {
    parts.push(file.slice(0, MiB));
    for (let k = 1; k <= 14; k++) {
      const at = Math.floor((size * k) / 15);
      parts.push(file.slice(at, Math.min(size, at + 64 * 1024)));
    }
    parts.push(file.slice(size - MiB, size));
  }
  const digest = await crypto.subtle.digest("SHA-256", await new Blob(parts).arrayBuffer());
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Keeps the files a session's model came from: the files themselves when together
// they are at most `limit` bytes, their names, sizes and fingerprints always.
// Resolves to whether the files were kept.
export async function saveFiles(id, files, limit) {
  const infos = [];
  for (const file of files) {
    infos.push({ name: file.name, size: file.size, hash: await fingerprint(file) });
  }
  const total = files.reduce((n, f) => n + f.size, 0);
  const kept = total <= limit;
  const tx = (await db()).transaction("files", "readwrite");
  tx.objectStore("files").put({ id, infos, blobs: kept ? Array.from(files) : null });
  await finished(tx);
  return kept;
}

// A session and its files: {record, infos, blobs} (null when there is none).
export async function load(id) {
  const tx = (await db()).transaction(["sessions", "files"], "readonly");
  const record = await result(tx.objectStore("sessions").get(id));
  const files = await result(tx.objectStore("files").get(id));
  if (!record) return null;
  return { record, infos: files ? files.infos : [], blobs: files ? files.blobs : [] };
}

// Every session, the newest first, as JSON: each one's id, name, when it was saved,
// its edits, the bytes its log holds, its files and whether they are kept; and the
// site's storage use and quota (navigator.storage.estimate) when the browser says.
export async function list() {
  const tx = (await db()).transaction(["sessions", "files"], "readonly");
  const sessions = await result(tx.objectStore("sessions").getAll());
  const files = new Map((await result(tx.objectStore("files").getAll())).map((f) => [f.id, f]));
  const out = sessions
    .map((s) => {
      const f = files.get(s.id);
      return {
        id: s.id,
        name: s.name,
        saved: s.saved,
        edits: s.log.length,
        log_bytes: s.log.reduce((n, e) => n + e.length, 0),
        files: f ? f.infos : [],
        files_kept: f ? f.blobs !== null : true,
      };
    })
    .sort((a, b) => b.saved - a.saved);
  let usage = null;
  let quota = null;
  if (navigator.storage && navigator.storage.estimate) {
    const estimate = await navigator.storage.estimate();
    usage = estimate.usage ?? null;
    quota = estimate.quota ?? null;
  }
  return JSON.stringify({ sessions: out, usage, quota });
}

export async function discard(id) {
  const tx = (await db()).transaction(["sessions", "files"], "readwrite");
  tx.objectStore("sessions").delete(id);
  tx.objectStore("files").delete(id);
  await finished(tx);
}

// Drops every session with no edits but `keep`, the oldest beyond `max`, and the
// files of sessions that are gone.
export async function prune(keep, max) {
  const tx = (await db()).transaction(["sessions", "files"], "readwrite");
  const sessions = tx.objectStore("sessions");
  const files = tx.objectStore("files");
  const all = (await result(sessions.getAll())).sort((a, b) => b.saved - a.saved);
  const staying = new Set();
  for (const s of all) {
    const wanted = s.id === keep || (s.log.length > 0 && staying.size < max);
    if (wanted) staying.add(s.id);
    else sessions.delete(s.id);
  }
  for (const id of await result(files.getAllKeys())) {
    if (!staying.has(id) && id !== keep) files.delete(id);
  }
  await finished(tx);
}
