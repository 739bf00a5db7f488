// The bridge between Graft's engine (a Web Worker running Rust) and onnxruntime-web.
// The engine imports this module the first time the user runs a model, so nothing
// here loads with the page. It runs onnxruntime-web's single-threaded wasm backend
// (no cross-origin isolation needed) from this app's own origin: `base` is the
// absolute address of the directory `cargo xtask` copies onnxruntime-web into.
//
// Tensors cross in both directions as {name, dtype, dims, bytes}: `dtype` is
// onnxruntime-web's type name, `bytes` the little-endian contents (a Uint8Array).

let ort = null;
let session = null;
let sessionKey = null;
// Runs one at a time: a run swaps the session out, so two must not interleave.
let queue = Promise.resolve();

const ARRAYS = {
  float32: Float32Array,
  float64: Float64Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int16: Int16Array,
  uint16: Uint16Array,
  float16: Uint16Array,
  int8: Int8Array,
  uint8: Uint8Array,
  bool: Uint8Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
};

// Loads onnxruntime-web (once) and says which version it is.
export async function load(base) {
  if (ort === null) {
    ort = await import(base + "ort.wasm.min.mjs");
    ort.env.wasm.wasmPaths = base;
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.proxy = false;
  }
  return ort.env.versions?.web ?? "";
}

function toTensor({ dtype, dims, bytes }) {
  const Array = ARRAYS[dtype];
  if (Array === undefined) {
    throw new Error(`${dtype} inputs are not supported in the browser`);
  }
  const copy = bytes.slice();
  const data = new Array(copy.buffer, 0, copy.byteLength / Array.BYTES_PER_ELEMENT);
  return new ort.Tensor(dtype, data, dims);
}

function fromTensor(name, tensor) {
  const data = tensor.data;
  if (!ArrayBuffer.isView(data)) {
    throw new Error(`output ${name} is a ${tensor.type} tensor; only numbers can be shown`);
  }
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
  return { name, dtype: tensor.type, dims: Array.from(tensor.dims), bytes };
}

// Runs `model` (the .onnx bytes; `key` names its state, so a second run of the same
// model reuses the session) on `inputs` and gives every output named in `outputs`,
// after any run asked for before it.
export function run(key, model, inputs, outputs) {
  const result = queue.then(() => runNow(key, model, inputs, outputs));
  queue = result.catch(() => {});
  return result;
}

async function runNow(key, model, inputs, outputs) {
  if (sessionKey !== key) {
    if (session !== null) {
      await session.release();
    }
    session = null;
    sessionKey = null;
    session = await ort.InferenceSession.create(model, {
      executionProviders: ["wasm"],
    });
    sessionKey = key;
  }
  const feeds = {};
  for (const input of inputs) {
    feeds[input.name] = toTensor(input);
  }
  const started = performance.now();
  const results = await session.run(feeds, outputs);
  const ms = performance.now() - started;
  const out = [];
  for (const name of outputs) {
    out.push(fromTensor(name, results[name]));
    results[name].dispose?.();
  }
  return { ms, outputs: out };
}
