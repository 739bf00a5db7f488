//! A small static file server on 127.0.0.1, for the built app in `dist/`: the browser
//! tests load the app from it and `cargo xtask serve` serves it to a person. GET and HEAD
//! only, one thread per connection, no caching, nothing outside the directory.

use std::io::{self, BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// Serves the files under `dir` at `http://127.0.0.1:{port}/` (port 0: any free port)
/// from a background thread. Returns the bound address and the thread, which runs until
/// the process ends.
pub fn serve_dir(dir: &Path, port: u16) -> io::Result<(SocketAddr, JoinHandle<()>)> {
    let root = dir.canonicalize()?;
    let listener = TcpListener::bind(("127.0.0.1", port))?;
    let addr = listener.local_addr()?;
    let handle = thread::Builder::new()
        .name("graft-serve".to_string())
        .spawn(move || {
            for stream in listener.incoming().flatten() {
                let root = root.clone();
                let _ = thread::Builder::new()
                    .name("graft-serve-conn".to_string())
                    .spawn(move || {
                        let _ = respond(stream, &root);
                    });
            }
        })?;
    Ok((addr, handle))
}

/// The Content-Type for a file name.
pub fn mime_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" | "map" => "application/json",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn respond(stream: TcpStream, root: &Path) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Skip the headers: nothing in them changes the answer.
    let mut header = String::new();
    let mut header_bytes = 0;
    loop {
        header.clear();
        let n = reader.read_line(&mut header)?;
        header_bytes += n;
        if n == 0 || header == "\r\n" || header == "\n" || header_bytes > 64 * 1024 {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut out = stream;
    if method != "GET" && method != "HEAD" {
        return send(
            &mut out,
            "405 Method Not Allowed",
            "text/plain",
            b"method not allowed\n",
            true,
        );
    }
    let head_only = method == "HEAD";
    match resolve(root, target) {
        Some(path) => match std::fs::read(&path) {
            Ok(body) => send(&mut out, "200 OK", mime_type(&path), &body, head_only),
            Err(_) => send(
                &mut out,
                "404 Not Found",
                "text/plain",
                b"not found\n",
                head_only,
            ),
        },
        None => send(
            &mut out,
            "404 Not Found",
            "text/plain",
            b"not found\n",
            head_only,
        ),
    }
}

/// The file a request target names, if it is inside `root`.
fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(path)?;
    let mut file = root.to_path_buf();
    for component in Path::new(decoded.trim_start_matches('/')).components() {
        match component {
            Component::Normal(part) => file.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if file.is_dir() {
        file.push("index.html");
    }
    let file = file.canonicalize().ok()?;
    (file.starts_with(root) && file.is_file()).then_some(file)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn send(
    out: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
    head_only: bool,
) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    );
    out.write_all(head.as_bytes())?;
    if !head_only {
        out.write_all(body)?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_stay_inside_the_root() {
        let root = std::env::temp_dir().canonicalize().unwrap();
        assert_eq!(resolve(&root, "/../etc/passwd"), None);
        assert_eq!(resolve(&root, "/%2e%2e/etc/passwd"), None);
        assert_eq!(percent_decode("a%20b"), Some("a b".to_string()));
        assert_eq!(percent_decode("bad%2"), None);
        assert_eq!(mime_type(Path::new("app_bg.wasm")), "application/wasm");
        assert_eq!(
            mime_type(Path::new("index.html")),
            "text/html; charset=utf-8"
        );
    }
}
