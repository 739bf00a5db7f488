//! A minimal WebDriver client for the browser tests: starts Debian's chromedriver on a
//! free port, opens a headless Chromium session with a fresh profile and its own
//! download directory, and speaks the handful of W3C WebDriver commands the tests use.
//! Dropping the [`Browser`] ends the session and stops chromedriver.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The key W3C WebDriver wraps element references in.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A directory under the system temp dir, removed on drop.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(label: &str) -> std::io::Result<Self> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!(
            "graft-{label}-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)?;
        Ok(Self(dir))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A reference to an element on the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element(String);

impl Element {
    /// The element as a script argument (`arguments[k]` in [`Browser::execute`]).
    pub fn to_json(&self) -> Value {
        json!({ ELEMENT_KEY: self.0 })
    }
}

/// A Chromium controlled through chromedriver.
pub struct Browser {
    agent: ureq::Agent,
    /// `http://127.0.0.1:{port}/session/{id}`.
    session_url: String,
    driver: Child,
    /// Chromium's profile and chromedriver's log.
    profile: TempDir,
    downloads: TempDir,
}

impl Browser {
    /// Starts chromedriver and a headless Chromium (paths from `GRAFT_CHROMEDRIVER` and
    /// `GRAFT_CHROMIUM`, else Debian's).
    pub fn launch() -> Result<Self, String> {
        let chromium = std::env::var("GRAFT_CHROMIUM").unwrap_or_else(|_| CHROMIUM.to_string());
        let chromedriver =
            std::env::var("GRAFT_CHROMEDRIVER").unwrap_or_else(|_| CHROMEDRIVER.to_string());
        for (what, path) in [("Chromium", &chromium), ("chromedriver", &chromedriver)] {
            if !Path::new(path).exists() {
                return Err(format!(
                    "{what} is not installed at {path} (apt-get install chromium chromium-driver)"
                ));
            }
        }
        let profile = TempDir::new("chromium").map_err(|e| format!("temp dir: {e}"))?;
        let downloads = TempDir::new("downloads").map_err(|e| format!("temp dir: {e}"))?;
        let port = free_port().map_err(|e| format!("no free port for chromedriver: {e}"))?;
        let log = profile.path().join("chromedriver.log");
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .arg(format!("--log-path={}", log.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {chromedriver}: {e}"))?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .proxy(None)
            .timeout_global(Some(Duration::from_secs(90)))
            .build()
            .into();
        let base = format!("http://127.0.0.1:{port}");
        let mut browser = Self {
            agent,
            session_url: String::new(),
            driver,
            profile,
            downloads,
        };
        browser.wait_for_driver(&base)?;
        let session = browser
            .new_session(&base, &chromium)
            .map_err(|e| format!("{e}\n{}", browser.driver_log_tail()))?;
        browser.session_url = format!("{base}/session/{session}");
        browser.allow_downloads()?;
        Ok(browser)
    }

    /// The process id of chromedriver, the ancestor of every Chromium process this
    /// browser runs (benchmarks find the renderer's memory from it).
    pub fn driver_pid(&self) -> u32 {
        self.driver.id()
    }

    /// Where downloads land.
    pub fn download_dir(&self) -> &Path {
        self.downloads.path()
    }

    fn wait_for_driver(&mut self, base: &str) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(Some(status)) = self.driver.try_wait() {
                return Err(format!(
                    "chromedriver exited at start ({status})\n{}",
                    self.driver_log_tail()
                ));
            }
            let ready = self
                .request("GET", &format!("{base}/status"), None)
                .is_ok_and(|v| v["ready"].as_bool() == Some(true));
            if ready {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err("chromedriver did not become ready in 20 s".to_string());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn new_session(&self, base: &str, chromium: &str) -> Result<String, String> {
        let args = [
            "--headless".to_string(),
            "--no-sandbox".to_string(),
            "--disable-gpu".to_string(),
            "--disable-quic".to_string(),
            "--no-first-run".to_string(),
            "--disable-background-networking".to_string(),
            "--disable-component-update".to_string(),
            "--disable-sync".to_string(),
            "--disable-dev-shm-usage".to_string(),
            "--window-size=1280,800".to_string(),
            format!(
                "--user-data-dir={}",
                self.profile.path().join("profile").display()
            ),
        ];
        let capabilities = json!({
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "goog:loggingPrefs": { "browser": "ALL" },
                    "goog:chromeOptions": {
                        "binary": chromium,
                        "args": args,
                        "prefs": {
                            "download.default_directory": self.downloads.path(),
                            "download.prompt_for_download": false,
                            "download.directory_upgrade": true,
                            "safebrowsing.enabled": false,
                        }
                    }
                }
            }
        });
        let value = self.request("POST", &format!("{base}/session"), Some(capabilities))?;
        value["sessionId"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("chromedriver returned no session id: {value}"))
    }

    /// Headless Chromium drops downloads unless told where to put them.
    fn allow_downloads(&self) -> Result<(), String> {
        let path = self.downloads.path().display().to_string();
        self.cdp(
            "Browser.setDownloadBehavior",
            json!({ "behavior": "allow", "downloadPath": path }),
        )
        .or_else(|_| {
            self.cdp(
                "Page.setDownloadBehavior",
                json!({ "behavior": "allow", "downloadPath": path }),
            )
        })
        .map(drop)
    }

    fn driver_log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.profile.path().join("chromedriver.log"))
            .unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        let tail = lines[lines.len().saturating_sub(30)..].join("\n");
        format!("chromedriver log (last lines):\n{tail}")
    }

    /// Sends one WebDriver request; returns the response's `value`.
    fn request(&self, method: &str, url: &str, body: Option<Value>) -> Result<Value, String> {
        let response = match (method, body) {
            ("GET", _) => self.agent.get(url).call(),
            ("DELETE", _) => self.agent.delete(url).call(),
            (_, Some(body)) => self.agent.post(url).send_json(body),
            (_, None) => self.agent.post(url).send_json(json!({})),
        };
        let mut response = response.map_err(|e| format!("{method} {url}: {e}"))?;
        let status = response.status();
        let text = response
            .body_mut()
            .with_config()
            .limit(256 * 1024 * 1024)
            .read_to_string()
            .map_err(|e| format!("{method} {url}: reading the response: {e}"))?;
        let parsed: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{method} {url}: not JSON ({e}): {text:.200}"))?;
        let value = parsed.get("value").cloned().unwrap_or(Value::Null);
        if !status.is_success() {
            let error = value["error"].as_str().unwrap_or("unknown error");
            let message = value["message"].as_str().unwrap_or("");
            return Err(format!("{method} {url}: {status} {error}: {message}"));
        }
        Ok(value)
    }

    /// A command on the session, e.g. `cmd("POST", "/url", Some(json!({"url": u})))`.
    pub fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        self.request(method, &format!("{}{path}", self.session_url), body)
    }

    /// Runs a Chrome DevTools Protocol command through chromedriver.
    pub fn cdp(&self, command: &str, params: Value) -> Result<Value, String> {
        self.cmd(
            "POST",
            "/goog/cdp/execute",
            Some(json!({ "cmd": command, "params": params })),
        )
    }

    pub fn goto(&self, url: &str) -> Result<(), String> {
        self.cmd("POST", "/url", Some(json!({ "url": url })))
            .map(drop)
    }

    /// Every element matching a CSS selector.
    pub fn find_all(&self, css: &str) -> Result<Vec<Element>, String> {
        let value = self.cmd(
            "POST",
            "/elements",
            Some(json!({ "using": "css selector", "value": css })),
        )?;
        Ok(value
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|e| e[ELEMENT_KEY].as_str())
                    .map(|id| Element(id.to_string()))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// The first element matching a CSS selector, if any.
    pub fn find(&self, css: &str) -> Result<Option<Element>, String> {
        Ok(self.find_all(css)?.into_iter().next())
    }

    /// The element with `data-testid` = `id`, if any.
    pub fn by_testid(&self, id: &str) -> Result<Option<Element>, String> {
        self.find(&testid(id))
    }

    /// Waits until an element matches `css`.
    pub fn wait_for(&self, css: &str, timeout: Duration) -> Result<Element, String> {
        wait_until(timeout, &format!("an element matching {css}"), || {
            self.find(css)
        })
    }

    pub fn click(&self, element: &Element) -> Result<(), String> {
        self.cmd("POST", &format!("/element/{}/click", element.0), None)
            .map(drop)
    }

    /// Clicks the middle of an element with Shift held, through the WebDriver actions
    /// API (a real key press and mouse click, as a person would make them).
    pub fn shift_click(&self, element: &Element) -> Result<(), String> {
        const SHIFT: &str = "\u{E008}";
        let origin = json!({ ELEMENT_KEY: element.0 });
        let actions = json!({ "actions": [
            { "type": "key", "id": "keyboard", "actions": [
                { "type": "keyDown", "value": SHIFT },
                { "type": "pause", "duration": 0 },
                { "type": "pause", "duration": 0 },
                { "type": "pause", "duration": 0 },
                { "type": "keyUp", "value": SHIFT },
            ]},
            { "type": "pointer", "id": "mouse", "parameters": { "pointerType": "mouse" }, "actions": [
                { "type": "pause", "duration": 0 },
                { "type": "pointerMove", "origin": origin, "x": 0, "y": 0 },
                { "type": "pointerDown", "button": 0 },
                { "type": "pointerUp", "button": 0 },
                { "type": "pause", "duration": 0 },
            ]},
        ]});
        self.cmd("POST", "/actions", Some(actions))?;
        self.cmd("DELETE", "/actions", None).map(drop)
    }

    /// Drags from the middle of an element by (`dx`, `dy`) pixels with the left button,
    /// through the WebDriver actions API, in a few moves as a hand would.
    pub fn drag(&self, element: &Element, dx: i64, dy: i64) -> Result<(), String> {
        let origin = json!({ ELEMENT_KEY: element.0 });
        let mut moves = vec![
            json!({ "type": "pointerMove", "origin": origin, "x": 0, "y": 0 }),
            json!({ "type": "pointerDown", "button": 0 }),
        ];
        for _ in 0..4 {
            moves.push(json!({ "type": "pointerMove", "origin": "pointer", "x": dx / 4, "y": dy / 4, "duration": 20 }));
        }
        moves.push(json!({ "type": "pointerUp", "button": 0 }));
        let actions = json!({ "actions": [
            { "type": "pointer", "id": "mouse", "parameters": { "pointerType": "mouse" }, "actions": moves },
        ]});
        self.cmd("POST", "/actions", Some(actions))?;
        self.cmd("DELETE", "/actions", None).map(drop)
    }

    /// Presses a key chord on the page through the WebDriver actions API, as a person
    /// would: `modifiers` held (e.g. Control `\u{E009}`, Shift `\u{E008}`), `key`
    /// pressed and released, the modifiers released.
    pub fn press_keys(&self, modifiers: &[&str], key: &str) -> Result<(), String> {
        let mut actions = Vec::new();
        for m in modifiers {
            actions.push(json!({ "type": "keyDown", "value": m }));
        }
        actions.push(json!({ "type": "keyDown", "value": key }));
        actions.push(json!({ "type": "keyUp", "value": key }));
        for m in modifiers.iter().rev() {
            actions.push(json!({ "type": "keyUp", "value": m }));
        }
        let body = json!({ "actions": [
            { "type": "key", "id": "keyboard", "actions": actions },
        ]});
        self.cmd("POST", "/actions", Some(body))?;
        self.cmd("DELETE", "/actions", None).map(drop)
    }

    /// Types into an element; for `<input type=file>` the text is the absolute path of
    /// the file (several paths separated by newlines when the input is `multiple`).
    pub fn send_keys(&self, element: &Element, text: &str) -> Result<(), String> {
        self.cmd(
            "POST",
            &format!("/element/{}/value", element.0),
            Some(json!({ "text": text })),
        )
        .map(drop)
    }

    /// Empties a text field, as selecting its text and deleting it would.
    pub fn clear(&self, element: &Element) -> Result<(), String> {
        self.cmd(
            "POST",
            &format!("/element/{}/clear", element.0),
            Some(json!({})),
        )
        .map(drop)
    }

    /// Chooses files in a file input.
    pub fn choose_files(&self, element: &Element, files: &[&Path]) -> Result<(), String> {
        let mut paths = Vec::new();
        for file in files {
            let absolute = file
                .canonicalize()
                .map_err(|e| format!("{}: {e}", file.display()))?;
            paths.push(absolute.display().to_string());
        }
        self.send_keys(element, &paths.join("\n"))
    }

    /// The rendered text of an element.
    pub fn text(&self, element: &Element) -> Result<String, String> {
        let value = self.cmd("GET", &format!("/element/{}/text", element.0), None)?;
        Ok(value.as_str().unwrap_or_default().to_string())
    }

    pub fn attribute(&self, element: &Element, name: &str) -> Result<Option<String>, String> {
        let value = self.cmd(
            "GET",
            &format!("/element/{}/attribute/{name}", element.0),
            None,
        )?;
        Ok(value.as_str().map(str::to_string))
    }

    /// A DOM property of an element (e.g. a `<select>`'s current `value`).
    pub fn property(&self, element: &Element, name: &str) -> Result<Value, String> {
        self.cmd(
            "GET",
            &format!("/element/{}/property/{name}", element.0),
            None,
        )
    }

    /// Runs a script in the page (`arguments[i]` are `args`); returns its result.
    pub fn execute(&self, script: &str, args: Vec<Value>) -> Result<Value, String> {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
    }

    /// Runs an async script: it calls `arguments[arguments.length - 1](result)`.
    pub fn execute_async(&self, script: &str, args: Vec<Value>) -> Result<Value, String> {
        self.cmd(
            "POST",
            "/execute/async",
            Some(json!({ "script": script, "args": args })),
        )
    }

    /// Sets the viewport to exactly `width` x `height` CSS pixels.
    pub fn set_viewport(&self, width: u32, height: u32) -> Result<(), String> {
        self.cdp(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        )
        .map(drop)
    }

    /// Makes the page see `prefers-color-scheme: dark` (or light).
    pub fn set_color_scheme(&self, dark: bool) -> Result<(), String> {
        let value = if dark { "dark" } else { "light" };
        self.cdp(
            "Emulation.setEmulatedMedia",
            json!({ "features": [{ "name": "prefers-color-scheme", "value": value }] }),
        )
        .map(drop)
    }

    /// Saves a PNG of the viewport.
    pub fn screenshot(&self, path: &Path) -> Result<(), String> {
        let value = self.cmd("GET", "/screenshot", None)?;
        let png = base64_decode(value.as_str().unwrap_or_default())
            .ok_or("the screenshot is not base64")?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(path, png).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The page's console messages since the last call (Chromium keeps them when the
    /// session asks for `goog:loggingPrefs`).
    pub fn console_log(&self) -> Result<Vec<String>, String> {
        let value = self.cmd("POST", "/se/log", Some(json!({ "type": "browser" })))?;
        Ok(value
            .as_array()
            .map(|entries| {
                entries
                    .iter()
                    .map(|e| {
                        format!(
                            "{} {}",
                            e["level"].as_str().unwrap_or("?"),
                            e["message"].as_str().unwrap_or("")
                        )
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Waits for a finished download named `name` and returns its path.
    pub fn wait_for_download(&self, name: &str, timeout: Duration) -> Result<PathBuf, String> {
        let path = self.downloads.path().join(name);
        let partial = self.downloads.path().join(format!("{name}.crdownload"));
        let mut last_size = None;
        wait_until(timeout, &format!("the download {name}"), || {
            let size = std::fs::metadata(&path).ok().map(|m| m.len());
            let stable = size.is_some() && size == last_size && !partial.exists();
            last_size = size;
            Ok(stable.then(|| path.clone()))
        })
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session_url.is_empty() {
            let url = self.session_url.clone();
            let _ = self.request("DELETE", &url, None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// The CSS selector for `data-testid` = `id`.
pub fn testid(id: &str) -> String {
    format!("[data-testid=\"{id}\"]")
}

/// Polls `probe` every 50 ms until it returns `Some`, an error, or `timeout` passes.
pub fn wait_until<T>(
    timeout: Duration,
    what: &str,
    mut probe: impl FnMut() -> Result<Option<T>, String>,
) -> Result<T, String> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(found) = probe()? {
            return Ok(found);
        }
        if Instant::now() > deadline {
            return Err(format!("timed out after {timeout:?} waiting for {what}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// For a [`wait_until`] probe: a redraw may replace an element between finding it and
/// reading or clicking it, so a "stale element" error means "look again" (`Ok(None)`),
/// as a person would click what is on the screen now; any other error stands.
pub fn unless_stale<T>(result: Result<T, String>) -> Result<Option<T>, String> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(e) if e.contains("stale element") => Ok(None),
        Err(e) => Err(e),
    }
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// WebDriver's base64 (a screenshot): standard, padded.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

/// Drops `url` (a file the page's server serves) as a file named `name` on the
/// element `selector`, as a person dragging it there would: dragenter and dragover
/// on the page (the drop zones show), then the drop on the element.
pub fn drop_file(browser: &Browser, url: &str, name: &str, selector: &str) -> Result<(), String> {
    let shown = browser.execute_async(
        r#"
        const [url, name, done] = arguments;
        fetch(url).then(r => r.arrayBuffer()).then(buffer => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([buffer], name));
            window.__graftDrop = transfer;
            const target = document.querySelector("main");
            target.dispatchEvent(new DragEvent("dragenter", { dataTransfer: transfer, bubbles: true, cancelable: true }));
            target.dispatchEvent(new DragEvent("dragover", { dataTransfer: transfer, bubbles: true, cancelable: true }));
            requestAnimationFrame(() => done(!!document.querySelector('[data-testid="drop-zone"]')));
        });
        "#,
        vec![json!(url), json!(name)],
    )?;
    if shown != json!(true) {
        return Err("the drop zones do not show".into());
    }
    let dropped = browser.execute(
        r#"const zone = document.querySelector(arguments[0]);
           if (!zone) return false;
           zone.dispatchEvent(new DragEvent("drop",
             { dataTransfer: window.__graftDrop, bubbles: true, cancelable: true }));
           return true;"#,
        vec![json!(selector)],
    )?;
    if dropped != json!(true) {
        return Err(format!("{selector} is not on the page"));
    }
    Ok(())
}
