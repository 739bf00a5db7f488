//! The browser tier's fixture: the built app served from `dist/`, a fresh headless
//! Chromium on it. The tests are `#[ignore]`d; `cargo xtask test` runs them with
//! `--ignored` after `trunk build`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use crate::corpus::root;
use crate::serve::serve_dir;
use crate::webdriver::{Browser, Element, testid, unless_stale, wait_until};

/// How long the app gets to show a model or an error.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// The built app's directory.
pub fn dist() -> PathBuf {
    root().join("dist")
}

/// The app open in a browser. One at a time per test process: two Chromiums on a small
/// machine make the timing tests flaky, not faster.
pub struct App {
    pub browser: Browser,
    pub url: String,
    _turn: MutexGuard<'static, ()>,
}

impl App {
    /// Serves `dist/` (once per process), starts Chromium and opens the app.
    pub fn open() -> Self {
        static TURN: Mutex<()> = Mutex::new(());
        let turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let url = format!("http://{}/", server());
        let browser = Browser::launch().unwrap_or_else(|e| panic!("cannot start the browser: {e}"));
        browser
            .goto(&url)
            .unwrap_or_else(|e| panic!("cannot open {url}: {e}"));
        Self {
            browser,
            url,
            _turn: turn,
        }
    }

    /// The element with `data-testid` = `id`, waiting for it to appear.
    pub fn wait(&self, id: &str) -> Element {
        self.browser
            .wait_for(&testid(id), TIMEOUT)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Clicks the element with `data-testid` = `id`, waiting for it to appear. A redraw
    /// may replace the element between finding and clicking it (a panel filled in as
    /// its answer arrives from the engine): it is then found again and clicked, as a
    /// person would click what is on the screen.
    pub fn click(&self, id: &str) {
        self.click_css(&testid(id));
    }

    /// Clicks the first element `css` selects, as [`App::click`] does.
    pub fn click_css(&self, css: &str) {
        wait_until(TIMEOUT, &format!("a click on {css}"), || {
            let element = self.browser.wait_for(css, TIMEOUT)?;
            unless_stale(self.browser.click(&element))
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", self.diagnosis()));
    }

    /// Sends `keys` to the first element `css` selects, looking again if a redraw
    /// replaced it, as [`App::click_css`] does.
    pub fn keys_css(&self, css: &str, keys: &str) {
        wait_until(TIMEOUT, &format!("typing into {css}"), || {
            let element = self.browser.wait_for(css, TIMEOUT)?;
            unless_stale(self.browser.send_keys(&element, keys))
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", self.diagnosis()));
    }

    /// The element with `data-testid` = `id` now, if it is on the page.
    pub fn get(&self, id: &str) -> Option<Element> {
        self.browser.by_testid(id).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The text of the element with `data-testid` = `id`, waiting for it to appear.
    pub fn text(&self, id: &str) -> String {
        self.text_css(&testid(id))
    }

    /// The text of the first element `css` selects, waiting for it to appear. A redraw
    /// that replaces the element between finding and reading it means "look again".
    pub fn text_css(&self, css: &str) -> String {
        wait_until(TIMEOUT, &format!("the text of {css}"), || {
            let element = self.browser.wait_for(css, TIMEOUT)?;
            unless_stale(self.browser.text(&element))
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", self.diagnosis()))
    }

    /// The number a count shows (its `data-value`).
    pub fn number(&self, id: &str) -> u64 {
        let element = self.wait(id);
        let value = self
            .browser
            .attribute(&element, "data-value")
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("[data-testid={id}] has no data-value"));
        value
            .parse()
            .unwrap_or_else(|_| panic!("[data-testid={id}] data-value {value:?} is not a number"))
    }

    /// Waits until the open model's name is `name`.
    pub fn wait_for_model(&self, name: &str) {
        // The name is on the Summary tab (the Graph tab opens first). Wait for the tab:
        // right after the page loads, the app may not have mounted yet.
        let tab = self.wait("tab-summary");
        self.browser.click(&tab).unwrap_or_else(|e| panic!("{e}"));
        let result = wait_until(TIMEOUT, &format!("the model {name} to open"), || {
            let Some(element) = self.browser.by_testid("model-name")? else {
                return Ok(None);
            };
            Ok((self.browser.text(&element)? == name).then_some(()))
        });
        if let Err(e) = result {
            panic!("{e}\n{}", self.diagnosis());
        }
    }

    /// What the page says about itself, for a failing test's message: the error banner
    /// and the console.
    pub fn diagnosis(&self) -> String {
        let banner = self
            .browser
            .by_testid("error")
            .ok()
            .flatten()
            .and_then(|e| self.browser.text(&e).ok())
            .unwrap_or_default();
        let console = self.browser.console_log().unwrap_or_default().join("\n  ");
        format!("error banner: {banner:?}\nconsole:\n  {console}")
    }

    /// Waits until the error banner shows a message, and returns it.
    pub fn wait_for_error(&self) -> String {
        wait_until(TIMEOUT, "the error banner", || {
            let Some(element) = self.browser.by_testid("error")? else {
                return Ok(None);
            };
            let text = self.browser.text(&element)?;
            Ok((!text.trim().is_empty()).then_some(text))
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", self.diagnosis()))
    }

    /// The error banner's text, empty when there is none.
    pub fn error(&self) -> String {
        self.get("error")
            .map(|e| self.browser.text(&e).unwrap_or_else(|err| panic!("{err}")))
            .unwrap_or_default()
    }
}

/// The address `dist/` is served at, starting the server on first use.
fn server() -> SocketAddr {
    static SERVER: OnceLock<SocketAddr> = OnceLock::new();
    *SERVER.get_or_init(|| {
        let dist = dist();
        assert!(
            dist.join("index.html").is_file(),
            "the app is not built: {} has no index.html; run `trunk build --release --offline` \
             (cargo xtask test does)",
            dist.display()
        );
        let (addr, _thread) =
            serve_dir(&dist, 0).unwrap_or_else(|e| panic!("cannot serve {}: {e}", dist.display()));
        addr
    })
}
