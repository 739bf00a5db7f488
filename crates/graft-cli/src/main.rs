//! `graft`: the command-line face of the core. Thin: parse arguments, read files,
//! call the core, write results. Exit codes: 0 success, 1 the command ran and found
//! problems, 2 the input could not be read or used.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bytes::Bytes;
use clap::{Parser, Subcommand};
use graft::{ExportOptions, Imported, Severity, Summary};

#[derive(Parser)]
#[command(name = "graft", version, about = "Inspect and edit ONNX models")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Summarize a model: IR version, opsets, counts, inputs/outputs, diagnostics.
    Info {
        model: PathBuf,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check a model: onnx.checker's rules and Graft's stricter ones. Exit code 0 when
    /// clean or warnings only, 1 when errors are found, 2 when the file cannot be read.
    Check {
        model: PathBuf,
        /// Print the diagnostics as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a model (or one of its functions) as ONNX text.
    Print {
        model: PathBuf,
        /// Only this function: DOMAIN.NAME or DOMAIN.NAME:OVERLOAD.
        #[arg(long)]
        function: Option<String>,
    },
    /// Parse ONNX text into a model file.
    Parse {
        text: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Draw the model's graph as SVG, laid out as the app lays it out.
    Render {
        model: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
        /// Which groups to open: `none` (the default), `all`, or a depth N.
        #[arg(long, default_value = "none")]
        expand: String,
        /// Draw one function's body instead: DOMAIN.NAME or DOMAIN.NAME:OVERLOAD.
        #[arg(long)]
        function: Option<String>,
    },
    /// Re-encode a model (lossless), optionally embedding external data.
    Convert {
        input: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
        /// Write external tensors' bytes into the model instead of keeping references.
        #[arg(long)]
        embed_external: bool,
        /// Write the model even if fields unknown to this ONNX version must be dropped.
        #[arg(long)]
        allow_loss: bool,
        /// Convert every default-domain node (graph, subgraphs, function bodies) to this
        /// opset version first; exit code 1 if some node cannot be converted.
        #[arg(long)]
        opset: Option<i64>,
    },
    /// Inline the GUEST model into HOST and write the result (ONNX text when OUT ends
    /// in .onnxtxt or .txt, protobuf otherwise). Unbound guest inputs become host
    /// inputs; without --expose every guest output becomes a host output. Prints
    /// where each guest input and output went.
    Inline(InlineArgs),
    /// Specialize calls of model-local functions into overloads bound to their
    /// attributes (folding what becomes constant) and write the result (ONNX text when
    /// OUT ends in .onnxtxt or .txt, protobuf otherwise). Prints one line per call.
    Specialize(SpecializeArgs),
    /// Expand calls of model-local functions into their callers and write the result
    /// (ONNX text when OUT ends in .onnxtxt or .txt, protobuf otherwise). Without
    /// --function, --standard or --op every call of every local function is expanded.
    InlineFunctions(InlineFunctionsArgs),
    /// Turn main-graph nodes into a new local function DOMAIN.NAME called once where
    /// the first of them was.
    Outline(OutlineArgs),
    /// Replays an edit log (JSON, as the app exports it: an array of edits, see
    /// `graft::edit`) on MODEL and writes the result. A refused edit stops the replay
    /// with its position and message (exit 1, nothing written).
    Apply {
        log: PathBuf,
        model: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Infer the type and shape of every value and write the model with a value_info
    /// entry for every intermediate value that states none (ONNX text when OUT ends in
    /// .onnxtxt or .txt, protobuf otherwise). Stated types are kept; contradictions are
    /// printed as warnings. Prints a one-line summary.
    Infer {
        model: PathBuf,
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Compare model A with model B (protobuf, or ONNX text by the name): functions by
    /// full id, graphs by owner, nodes by name then by structure, values through the
    /// matched nodes. Prints one line per change under its graph's path, marked `+`
    /// added, `-` removed, `~` changed, `=` renamed, `>` inlined or `<` outlined, then
    /// the counts. Exit code 0 when the models are the same up to names, 1 when they
    /// differ, 2 when one cannot be read.
    ///
    /// With --json: {"same_up_to_names", "counts", "model": [FIELD], "functions":
    /// [{"change", "function", ...}], "graphs": [{"path", "fields", "nodes", "values"}]}
    /// where FIELD is {"field", "a", "b"} and nodes are {"name", "op", "domain",
    /// "index"}; only graphs with a change are listed.
    Diff {
        a: PathBuf,
        b: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Args)]
struct InlineFunctionsArgs {
    model: PathBuf,
    #[arg(short, long)]
    output: PathBuf,
    /// Only the calls of this function (every overload of the name without :OVERLOAD).
    #[arg(long, value_name = "DOMAIN.NAME[:OVERLOAD]")]
    function: Vec<String>,
    /// Also expand every standard operator that has a function body (one level).
    #[arg(long)]
    standard: bool,
    /// Expand the nodes of this standard operator into its function body.
    #[arg(long, value_name = "OP")]
    op: Vec<String>,
}

#[derive(clap::Args)]
struct OutlineArgs {
    model: PathBuf,
    /// Main-graph nodes by name (or by position in the node list, from 0).
    #[arg(long, value_delimiter = ',', required = true)]
    nodes: Vec<String>,
    /// The new function's DOMAIN.NAME.
    #[arg(long, value_name = "DOMAIN.NAME")]
    name: String,
    #[arg(short, long)]
    output: PathBuf,
}

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["node", "all"])))]
struct SpecializeArgs {
    model: PathBuf,
    #[arg(short, long)]
    output: PathBuf,
    /// The call to specialize: a node name, or the name of one of its outputs.
    #[arg(long)]
    node: Option<String>,
    /// NAME=VALUE in ONNX text syntax (`alpha=0.2`, `axes=[0,1]`, `mode="tanh"`): set
    /// on the call before specializing it (with --node).
    #[arg(long, value_name = "NAME=VALUE", requires = "node")]
    attr: Vec<String>,
    /// Specialize every call whose attributes are all constant.
    #[arg(long)]
    all: bool,
    /// With --all: only the calls of this function (any overload of the name).
    #[arg(long, value_name = "DOMAIN.NAME", requires = "all")]
    function: Option<String>,
    /// Keep this function even when no call of it is left (without :OVERLOAD, the
    /// generic).
    #[arg(long, value_name = "DOMAIN.NAME[:OVERLOAD]")]
    keep: Vec<String>,
}

#[derive(clap::Args)]
struct InlineArgs {
    /// The model to inline into.
    host: PathBuf,
    /// The model to inline.
    guest: PathBuf,
    #[arg(short, long)]
    output: PathBuf,
    /// GUEST_INPUT=HOST_VALUE: read a host value where the guest reads its input.
    #[arg(long, value_name = "GUEST_INPUT=HOST_VALUE")]
    bind: Vec<String>,
    /// GUEST_OUTPUT or GUEST_OUTPUT=NAME: make a guest output a host output.
    #[arg(long, value_name = "GUEST_OUTPUT[=NAME]")]
    expose: Vec<String>,
    /// Prefix of the new names (default: the guest graph's name).
    #[arg(long)]
    prefix: Option<String>,
    /// Import the guest as the local function DOMAIN.NAME and call it once.
    #[arg(long, value_name = "DOMAIN.NAME")]
    as_function: Option<String>,
    /// Convert the result's default domain to this opset version.
    #[arg(long)]
    opset: Option<i64>,
}

/// A failure to report on one line, with its exit code.
struct Failure(String);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { model, json } => info(&model, json),
        Command::Check { model, json } => check(&model, json),
        Command::Print { model, function } => print(&model, function.as_deref()),
        Command::Parse { text, output } => parse(&text, &output),
        Command::Render {
            model,
            output,
            expand,
            function,
        } => render_svg(&model, &output, &expand, function.as_deref()),
        Command::Convert {
            input,
            output,
            embed_external,
            allow_loss,
            opset,
        } => convert(&input, &output, embed_external, allow_loss, opset),
        Command::Inline(args) => inline(&args),
        Command::Specialize(args) => specialize(&args),
        Command::InlineFunctions(args) => inline_functions(&args),
        Command::Outline(args) => outline(&args),
        Command::Apply { log, model, output } => apply_log(&log, &model, &output),
        Command::Infer { model, output } => infer(&model, &output),
        Command::Diff { a, b, json } => diff(&a, &b, json),
    };
    if std::env::var_os("GRAFT_REPORT_PEAK_MEMORY").is_some() {
        report_peak_memory();
    }
    match result {
        Ok(code) => code,
        Err(Failure(message)) => {
            eprintln!("graft: {message}");
            ExitCode::from(2)
        }
    }
}

/// Reads and imports a model, attaching the external-data files it names that exist
/// beside it.
fn open(path: &Path) -> Result<Imported, Failure> {
    let bytes =
        std::fs::read(path).map_err(|e| Failure(format!("cannot read {}: {e}", path.display())))?;
    let mut imported = graft::import(Bytes::from(bytes))
        .map_err(|e| Failure(format!("{}: {e}", path.display())))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    for location in imported.model.external_locations() {
        let file = dir.join(&location);
        // A missing data file is not an error: references are kept and reported.
        if let Ok(data) = std::fs::read(&file) {
            imported.model.attach_external(location, Bytes::from(data));
        }
    }
    Ok(imported)
}

fn info(path: &Path, json: bool) -> Result<ExitCode, Failure> {
    let imported = open(path)?;
    let summary = Summary::of(&imported.model, &imported.diagnostics);
    if json {
        let text = serde_json::to_string_pretty(&summary)
            .map_err(|e| Failure(format!("cannot write JSON: {e}")))?;
        println!("{text}");
    } else {
        print!("{}", render(&summary));
    }
    Ok(ExitCode::SUCCESS)
}

fn check(path: &Path, json: bool) -> Result<ExitCode, Failure> {
    let imported = open(path)?;
    let mut diagnostics = imported.diagnostics;
    diagnostics.extend(graft::check::check(&imported.model));
    // What onnx's full check finds through shape inference, inference finds too (its
    // own findings: a call's problems it repeats are the checker's, listed above).
    let inferred = graft::infer::infer(&imported.model).diagnostics;
    diagnostics.extend(
        inferred
            .into_iter()
            .filter(|d| d.code.starts_with("infer.")),
    );
    // The process ends right after this: let the OS reclaim the model at once instead
    // of freeing a large model node by node (a sixth of `check`'s time at 50k nodes).
    std::mem::forget(imported.model);
    if json {
        let text = serde_json::to_string_pretty(&diagnostics)
            .map_err(|e| Failure(format!("cannot write JSON: {e}")))?;
        println!("{text}");
    } else {
        for d in &diagnostics {
            println!("{d}");
        }
        let errors = diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let warnings = diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count();
        println!(
            "{}: {errors} error(s), {warnings} warning(s)",
            path.display()
        );
    }
    let failed = diagnostics.iter().any(|d| d.severity == Severity::Error);
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Groups `graft render --expand all` opens at most (items), so a model with deeply
/// nested calls cannot make the picture unbounded.
const RENDER_ITEM_LIMIT: usize = 200_000;

fn render_svg(
    path: &Path,
    output: &Path,
    expand: &str,
    function: Option<&str>,
) -> Result<ExitCode, Failure> {
    let depth = match expand {
        "none" => 0,
        "all" => usize::MAX,
        n => n
            .parse()
            .map_err(|_| Failure(format!("--expand takes none, all or a number, not {n:?}")))?,
    };
    let imported = open(path)?;
    let model = &imported.model;
    let view = match function {
        Some(spec) => {
            let key = function_key(spec);
            let f = model
                .find_function(&key)
                .ok_or_else(|| Failure(format!("{} has no function {key}", path.display())))?;
            graft::view::View::of_function(model, f)
        }
        None => graft::view::View::of_model(model)
            .ok_or_else(|| Failure(format!("{} has no graph to draw", path.display())))?,
    };
    let mut scene = graft::view::Scene::new(view);
    if depth > 0 {
        scene.expand_to_depth(model, depth, RENDER_ITEM_LIMIT);
    }
    scene
        .layout(model, &mut || false)
        .map_err(|_| Failure("layout cancelled".into()))?;
    let svg = graft::view::svg::document(&scene, model);
    std::fs::write(output, svg)
        .map_err(|e| Failure(format!("cannot write {}: {e}", output.display())))?;
    Ok(ExitCode::SUCCESS)
}

fn print(path: &Path, function: Option<&str>) -> Result<ExitCode, Failure> {
    let imported = open(path)?;
    let model = &imported.model;
    let text = match function {
        None => graft::text::print_model(model),
        Some(spec) => {
            let key = function_key(spec);
            let id = model.find_function(&key).ok_or_else(|| {
                let known: Vec<String> = model
                    .functions
                    .iter()
                    .map(|&f| model.function(f).key().to_string())
                    .collect();
                Failure(format!(
                    "{} has no function {key} (it has: {})",
                    path.display(),
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ))
            })?;
            graft::text::print_function(model, id)
        }
    };
    emit(&text);
    Ok(ExitCode::SUCCESS)
}

/// `DOMAIN.NAME[:OVERLOAD]`: the name is after the last dot (domains have dots).
/// Writes `text` to stdout. A reader that stops early (`graft print m | head`) is
/// not an error: the output is simply cut.
fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// `DOMAIN.NAME[:OVERLOAD]` as a key (no overload: the generic's; no domain: the
/// default domain).
fn function_key(spec: &str) -> graft::ir::FunctionKey {
    let (path, overload) = spec.split_once(':').unwrap_or((spec, ""));
    let (domain, name) = path.rsplit_once('.').unwrap_or(("", path));
    graft::ir::FunctionKey {
        domain: graft::ir::normalize_domain(domain).to_string(),
        name: name.to_string(),
        overload: overload.to_string(),
    }
}

fn parse(path: &Path, output: &Path) -> Result<ExitCode, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure(format!("cannot read {}: {e}", path.display())))?;
    let imported = graft::text::parse_model(&text).map_err(|e| {
        // The caret excerpt follows on the next lines.
        Failure(format!("{}:{e}", path.display()))
    })?;
    for d in imported
        .diagnostics
        .iter()
        .filter(|d| d.severity >= Severity::Warning)
    {
        eprintln!("{d}");
    }
    write_model(
        &imported.model,
        &ExportOptions::default(),
        Some(path),
        output,
    )?;
    Ok(ExitCode::SUCCESS)
}

fn render(s: &Summary) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let opt = |v: Option<i64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    let _ = writeln!(out, "ir_version        {}", opt(s.ir_version));
    let opsets: Vec<String> = s
        .opset_import
        .iter()
        .map(|o| {
            let domain = if o.domain.is_empty() {
                "ai.onnx"
            } else {
                &o.domain
            };
            format!("{domain} {}", opt(o.version))
        })
        .collect();
    let _ = writeln!(out, "opset_import      {}", opsets.join(", "));
    let _ = writeln!(
        out,
        "producer          {} {}",
        s.producer_name, s.producer_version
    );
    if !s.doc_string.is_empty() {
        let _ = writeln!(out, "doc_string        {}", s.doc_string);
    }
    for (k, v) in &s.metadata {
        let _ = writeln!(out, "metadata          {k} = {v}");
    }
    for i in &s.inputs {
        let _ = writeln!(out, "input             {}: {}", i.name, i.r#type);
    }
    for o in &s.outputs {
        let _ = writeln!(out, "output            {}: {}", o.name, o.r#type);
    }
    let _ = writeln!(
        out,
        "nodes             {} ({} in the main graph)",
        s.nodes_total, s.nodes_main
    );
    let _ = writeln!(
        out,
        "functions         {} ({} overloads)",
        s.functions, s.overloads
    );
    let _ = writeln!(
        out,
        "initializers      {} ({} bytes)",
        s.initializers, s.initializer_bytes
    );
    let _ = writeln!(
        out,
        "external tensors  {} ({} bytes)",
        s.external_tensors, s.external_bytes
    );
    for (location, supplied) in &s.external_files {
        let state = if *supplied { "found" } else { "missing" };
        let _ = writeln!(out, "external file     {location} ({state})");
    }
    let _ = writeln!(out, "subgraph depth    {}", s.max_subgraph_depth);
    for d in &s.diagnostics {
        let _ = writeln!(out, "{d}");
    }
    out
}

fn convert(
    input: &Path,
    output: &Path,
    embed_external: bool,
    allow_loss: bool,
    opset: Option<i64>,
) -> Result<ExitCode, Failure> {
    let mut imported = open(input)?;
    for d in imported
        .diagnostics
        .iter()
        .filter(|d| d.severity >= Severity::Warning)
    {
        eprintln!("{d}");
    }
    if let Some(target) = opset {
        match graft::opset::convert(&mut imported.model, target) {
            Ok(report) => eprintln!("graft: opset {target}: {report}"),
            Err(e) => {
                eprintln!("graft: {}: {e}", input.display());
                return Ok(ExitCode::from(1));
            }
        }
    }
    let options = ExportOptions {
        allow_loss,
        embed_external,
        ..ExportOptions::default()
    };
    write_model(&imported.model, &options, Some(input), output)?;
    Ok(ExitCode::SUCCESS)
}

/// Whether a path names ONNX text rather than protobuf.
fn is_text(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == "onnxtxt" || e == "txt")
}

/// Reads a model from protobuf, or from ONNX text when the name says so.
fn open_any(path: &Path) -> Result<graft::Model, Failure> {
    if !is_text(path) {
        return open(path).map(|imported| imported.model);
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure(format!("cannot read {}: {e}", path.display())))?;
    let mut model = graft::text::parse_model(&text)
        .map_err(|e| {
            let first = e.to_string().lines().next().unwrap_or("").to_string();
            Failure(format!("{}:{first}", path.display()))
        })?
        .model;
    let dir = path.parent().unwrap_or(Path::new("."));
    for location in model.external_locations() {
        if let Ok(data) = std::fs::read(dir.join(&location)) {
            model.attach_external(location, Bytes::from(data));
        }
    }
    Ok(model)
}

fn diff(a: &Path, b: &Path, json: bool) -> Result<ExitCode, Failure> {
    let (a, b) = (open_any(a)?, open_any(b)?);
    let d = graft::diff::diff(&a, &b);
    if json {
        let text = serde_json::to_string_pretty(&d.to_json(&a, &b))
            .map_err(|e| Failure(format!("cannot write JSON: {e}")))?;
        println!("{text}");
    } else {
        print!("{}", d.report(&a, &b));
    }
    Ok(if d.same_up_to_names() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn inline(args: &InlineArgs) -> Result<ExitCode, Failure> {
    use graft::inline::{InlineOptions, Mode};
    let mut bindings = Vec::with_capacity(args.bind.len());
    for b in &args.bind {
        let (input, value) = b
            .split_once('=')
            .ok_or_else(|| Failure(format!("--bind takes GUEST_INPUT=HOST_VALUE, not {b:?}")))?;
        bindings.push((input.to_string(), value.to_string()));
    }
    let expose: Vec<(String, Option<String>)> = args
        .expose
        .iter()
        .map(|e| match e.split_once('=') {
            Some((out, name)) => (out.to_string(), Some(name.to_string())),
            None => (e.clone(), None),
        })
        .collect();
    let mode = match args.as_function.as_deref() {
        None => Mode::Nodes,
        Some(spec) => {
            let (domain, name) = spec
                .rsplit_once('.')
                .ok_or_else(|| Failure(format!("--as-function takes DOMAIN.NAME, not {spec:?}")))?;
            Mode::Function {
                domain: domain.to_string(),
                name: name.to_string(),
            }
        }
    };
    let mut host = open_any(&args.host)?;
    let guest = open_any(&args.guest)?;
    let options = InlineOptions {
        bindings,
        expose_all: expose.is_empty(),
        expose,
        prefix: args.prefix.clone(),
        target: None,
        mode,
        domain_versions: Vec::new(),
    };
    let report = match graft::inline::inline_model(&mut host, &guest, &options) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("graft: cannot inline {}: {e}", args.guest.display());
            return Ok(ExitCode::from(1));
        }
    };
    if let Some(target) = args.opset
        && let Err(e) = graft::opset::convert(&mut host, target)
    {
        eprintln!("graft: cannot convert the result to opset {target}: {e}");
        return Ok(ExitCode::from(1));
    }
    // Where the guest went, one line each (scripts read these).
    let mut out = String::new();
    for line in &report.converted {
        out.push_str(&format!("{line}\n"));
    }
    for (input, host_value) in &options.bindings {
        out.push_str(&format!("input {input} = {host_value}\n"));
    }
    for (input, added) in &report.inputs_added {
        out.push_str(&format!("input {input} = {added} (new graph input)\n"));
    }
    for (output, host_value) in &report.outputs {
        out.push_str(&format!("output {output} = {host_value}\n"));
    }
    out.push_str(&format!("added {} nodes\n", report.nodes.len()));
    if is_text(&args.output) {
        std::fs::write(&args.output, graft::text::print_model(&host))
            .map_err(|e| Failure(format!("cannot write {}: {e}", args.output.display())))?;
    } else {
        write_model(
            &host,
            &ExportOptions::default(),
            Some(&args.host),
            &args.output,
        )?;
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

fn inline_functions(args: &InlineFunctionsArgs) -> Result<ExitCode, Failure> {
    use graft::library::Which;
    let mut which = Vec::new();
    for spec in &args.function {
        let key = function_key(spec);
        which.push(if spec.contains(':') {
            Which::Key(key)
        } else {
            Which::Name {
                domain: key.domain,
                name: key.name,
            }
        });
    }
    let standard = args.standard || !args.op.is_empty();
    if which.is_empty() && !standard {
        which.push(Which::All);
    }
    let mut model = open_any(&args.model)?;
    let mut calls = 0;
    let mut removed = Vec::new();
    for w in &which {
        match graft::library::inline_calls(&mut model, w) {
            Ok(report) => {
                calls += report.calls;
                removed.extend(report.removed);
            }
            Err(e) => {
                eprintln!(
                    "graft: cannot inline functions of {}: {e}",
                    args.model.display()
                );
                return Ok(ExitCode::from(1));
            }
        }
    }
    let mut expanded = graft::library::StandardReport::default();
    if standard {
        let ops = (!args.standard).then_some(args.op.as_slice());
        match graft::library::expand_standard_ops(&mut model, ops) {
            Ok(report) => expanded = report,
            Err(e) => {
                eprintln!("graft: cannot expand {}: {e}", args.model.display());
                return Ok(ExitCode::from(1));
            }
        }
        for why in &expanded.skipped {
            eprintln!("graft: left as is: {why}");
        }
        if let Some(op) = args.op.iter().find(|op| !expanded.ops.contains(op)) {
            eprintln!(
                "graft: {} has no {op} node whose function body could be expanded",
                args.model.display()
            );
            return Ok(ExitCode::from(1));
        }
    }
    write_any(&model, &args.model, &args.output)?;
    if !which.is_empty() {
        println!("inlined {calls} calls");
    }
    for key in removed {
        println!("removed {key}");
    }
    if standard {
        let ops = if expanded.ops.is_empty() {
            String::new()
        } else {
            format!(": {}", expanded.ops.join(", "))
        };
        println!("expanded {} standard op node(s){ops}", expanded.expanded);
    }
    Ok(ExitCode::SUCCESS)
}

fn apply_log(log: &Path, path: &Path, output: &Path) -> Result<ExitCode, Failure> {
    let json = std::fs::read_to_string(log)
        .map_err(|e| Failure(format!("cannot read {}: {e}", log.display())))?;
    // The log goes through the document host's door, as the app's edits do: all
    // of it or none.
    let mut host = graft::host::Host::open(open_any(path)?, Vec::new());
    let applied =
        graft::host::read_log(&json).and_then(|edits| host.apply(graft::host::Command::Log(edits)));
    match applied {
        Ok(applied) => {
            write_any(host.model(), path, output)?;
            println!("{} edits applied", applied.edits);
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("graft: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

fn outline(args: &OutlineArgs) -> Result<ExitCode, Failure> {
    let (domain, name) = args
        .name
        .rsplit_once('.')
        .ok_or_else(|| Failure(format!("--name takes DOMAIN.NAME, not {:?}", args.name)))?;
    let mut model = open_any(&args.model)?;
    let Some(g) = model.graph else {
        eprintln!("graft: {} has no graph", args.model.display());
        return Ok(ExitCode::from(1));
    };
    let list = &model.graph(g).nodes;
    let mut nodes = Vec::with_capacity(args.nodes.len());
    for spec in &args.nodes {
        let by_name = list.iter().copied().find(|&n| model.node(n).name() == spec);
        let by_index = || {
            spec.parse::<usize>()
                .ok()
                .and_then(|k| list.get(k).copied())
        };
        match by_name.or_else(by_index) {
            Some(n) => nodes.push(n),
            None => {
                eprintln!("graft: the main graph has no node {spec:?}");
                return Ok(ExitCode::from(1));
            }
        }
    }
    match graft::library::outline(&mut model, &nodes, domain, name) {
        Ok(key) => {
            write_any(&model, &args.model, &args.output)?;
            println!("outlined {} nodes into {key}", nodes.len());
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("graft: cannot outline: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

fn infer(path: &Path, output: &Path) -> Result<ExitCode, Failure> {
    let timings = std::env::var_os("GRAFT_TIMINGS").is_some();
    let t0 = std::time::Instant::now();
    let mut model = open_any(path)?;
    let t1 = std::time::Instant::now();
    let mut inferred = graft::infer::infer(&model);
    let t2 = std::time::Instant::now();
    let written = graft::infer::apply(&mut model, &inferred);
    // What is printed is taken out and the rest freed before writing: the export then
    // reuses that memory instead of faulting in fresh pages.
    let diagnostics = std::mem::take(&mut inferred.diagnostics);
    let c = inferred.counts();
    drop(inferred);
    let t3 = std::time::Instant::now();
    write_any(&model, path, output)?;
    if timings {
        let ms = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64() * 1e3;
        eprintln!(
            "read {:.1} ms, infer {:.1} ms, apply {:.1} ms, write {:.1} ms",
            ms(t0, t1),
            ms(t1, t2),
            ms(t2, t3),
            ms(t3, std::time::Instant::now())
        );
    }
    for d in &diagnostics {
        println!("{d}");
    }
    println!(
        "{} values: {} typed, {} with a shape, {} unknown; {written} value_info written, {} findings",
        c.values,
        c.typed,
        c.shaped,
        c.unknown,
        diagnostics.len()
    );
    std::mem::forget(model);
    Ok(ExitCode::SUCCESS)
}

/// Writes ONNX text when `output` ends in .onnxtxt or .txt, protobuf otherwise.
fn write_any(model: &graft::Model, source: &Path, output: &Path) -> Result<(), Failure> {
    if is_text(output) {
        std::fs::write(output, graft::text::print_model(model))
            .map_err(|e| Failure(format!("cannot write {}: {e}", output.display())))
    } else {
        write_model(model, &ExportOptions::default(), Some(source), output)
    }
}

fn specialize(args: &SpecializeArgs) -> Result<ExitCode, Failure> {
    let mut attrs = Vec::with_capacity(args.attr.len());
    for a in &args.attr {
        match graft::text::parse_attributes(a) {
            Ok(parsed) => attrs.extend(parsed),
            Err(e) => {
                eprintln!("graft: --attr {a:?}: {}", e.message);
                return Ok(ExitCode::from(1));
            }
        }
    }
    let mut options = graft::specialize::SpecializeOptions::default();
    for spec in &args.keep {
        options.keep.push(function_key(spec));
    }
    if let Some(spec) = &args.function {
        options.only = Some(function_key(spec));
    }
    let mut model = open_any(&args.model)?;
    let result = match &args.node {
        Some(name) => match graft::specialize::find_node(&model, name) {
            Some(node) => graft::specialize::specialize_with(&mut model, node, &attrs, &options),
            None => Err(graft::specialize::SpecializeError::NoSuchNode(name.clone())),
        },
        None => graft::specialize::specialize_all_with(&mut model, &options),
    };
    let report = match result {
        Ok(report) => report,
        Err(e) => {
            eprintln!("graft: cannot specialize: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    let mut out = String::new();
    for call in &report.calls {
        let node = model.node(call.node);
        let what = node
            .outputs
            .iter()
            .flatten()
            .next()
            .map(|&v| model.value(v).name.clone())
            .unwrap_or_default();
        let how = if call.reused { "reused" } else { "new" };
        out.push_str(&format!("call {what} -> {} ({how})\n", call.overload));
    }
    for key in &report.removed {
        out.push_str(&format!("removed {key}\n"));
    }
    out.push_str(&format!(
        "folded {} nodes and {} If, removed {} dead nodes\n",
        report.folded_nodes, report.folded_ifs, report.removed_nodes
    ));
    if is_text(&args.output) {
        std::fs::write(&args.output, graft::text::print_model(&model))
            .map_err(|e| Failure(format!("cannot write {}: {e}", args.output.display())))?;
    } else {
        write_model(
            &model,
            &ExportOptions::default(),
            Some(&args.model),
            &args.output,
        )?;
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// Encodes `model` into the file `output`, streamed (the whole encoding is never in
/// memory at once). On any failure the file is removed: nothing half-written stays.
///
/// External data: references are kept when the output is beside the model they were
/// read with (`source`). Anywhere else they would point at nothing, so the bytes the
/// model uses go into a new data file beside the output, `OUTPUT.data`, written piece
/// by piece from the attached files (a missing data file is then an error).
fn write_model(
    model: &graft::Model,
    options: &ExportOptions,
    source: Option<&Path>,
    output: &Path,
) -> Result<(), Failure> {
    use std::io::Write as _;
    let mut options = options.clone();
    let data_path = if options.embed_external || model.external_locations().is_empty() {
        None
    } else {
        let dir = |p: &Path| {
            let d = p.parent().filter(|d| !d.as_os_str().is_empty());
            d.unwrap_or(Path::new(".")).canonicalize().ok()
        };
        let beside = source.is_some_and(|s| dir(s).is_some() && dir(s) == dir(output));
        let name = output
            .file_name()
            .map_or_else(|| "model.onnx".into(), |n| n.to_string_lossy().into_owned());
        (!beside).then(|| {
            options.external_to = Some(format!("{name}.data"));
            output.with_file_name(format!("{name}.data"))
        })
    };
    let cannot = |path: &Path, e: &dyn std::fmt::Display| {
        Failure(format!("cannot write {}: {e}", path.display()))
    };
    let file = std::fs::File::create(output).map_err(|e| cannot(output, &e))?;
    let mut writer = std::io::BufWriter::with_capacity(1 << 20, file);
    let result = graft::export_to(model, &options, &mut writer)
        .map_err(|e| Failure(format!("{}: {e}", output.display())))
        .and_then(|data| {
            writer.flush().map_err(|e| cannot(output, &e))?;
            let Some(path) = &data_path else {
                return Ok(());
            };
            let file = std::fs::File::create(path).map_err(|e| cannot(path, &e))?;
            let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
            for piece in &data.pieces {
                out.write_all(piece).map_err(|e| cannot(path, &e))?;
            }
            out.flush().map_err(|e| cannot(path, &e))?;
            eprintln!(
                "graft: note: the external data the model uses ({} bytes) is written to {}",
                data.len(),
                path.display()
            );
            Ok(())
        });
    if result.is_err() {
        drop(writer);
        let _ = std::fs::remove_file(output);
        if let Some(path) = &data_path {
            let _ = std::fs::remove_file(path);
        }
    }
    result
}

/// For `cargo xtask bench`: the process's peak resident memory (Linux only).
fn report_peak_memory() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
        eprintln!("peak memory {}", line.trim_start_matches("VmHWM:").trim());
    }
}
