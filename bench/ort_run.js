// SPDX-License-Identifier: Apache-2.0
// ONNX Runtime's side of bench/perf_bench.py: runs an .onnx model through the
// Node binding (onnxruntime-node, found through NODE_PATH) on .npy inputs
// (float32 or int64), writes the outputs as .npy, and times session.run as a
// user of the binding calls it, printing one JSON line.
//
//   node ort_run.js MODEL.onnx --threads T [--input NAME=FILE.npy]...
//        [--output-dir DIR] [--warmup W] [--runs N]
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const NPY_MAGIC = '\x93NUMPY';

/** A float32 or int64 C-order .npy file as {dims, data, type}. */
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== NPY_MAGIC)
    throw new Error(`${file}: not a .npy file`);
  const v1 = buf[6] === 1;
  const headerLen = v1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (v1 ? 10 : 12) + headerLen;
  const header = buf.toString('latin1', v1 ? 10 : 12, start);
  const int64 = /'descr':\s*'<i8'/.test(header);
  if (!(int64 || /'descr':\s*'<f4'/.test(header)) || /'fortran_order':\s*True/.test(header))
    throw new Error(`${file}: only C-order float32 and int64 arrays are supported`);
  const dims = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',')
      .map((d) => d.trim()).filter((d) => d).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const data = int64 ? new BigInt64Array(count) : new Float32Array(count);
  Buffer.from(data.buffer).set(buf.subarray(start, start + data.BYTES_PER_ELEMENT * count));
  return {dims, data, type: int64 ? 'int64' : 'float32'};
}

function writeNpy(file, tensor) {
  const descr = {float32: '<f4', int64: '<i8'}[tensor.type];
  if (!descr)
    throw new Error(`${file}: output type ${tensor.type}, only float32 and int64 are written`);
  const shape = tensor.dims.length === 1 ? `${tensor.dims[0]},` : tensor.dims.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';  // 64-byte aligned
  const head = Buffer.alloc(10);
  head.write(NPY_MAGIC, 0, 'latin1');
  head[6] = 1;
  head.writeUInt16LE(header.length, 8);
  const data = tensor.data;
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

function parseArgs(argv) {
  const options = {inputs: [], threads: 1, warmup: 3, runs: 1, outputDir: null};
  for (let i = 0; i < argv.length; ++i) {
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${argv[i]} expects a value`);
      return argv[++i];
    };
    switch (argv[i]) {
      case '--input': {
        const spec = value(), eq = spec.indexOf('=');
        if (eq <= 0) throw new Error(`--input expects NAME=FILE.npy, got '${spec}'`);
        options.inputs.push([spec.slice(0, eq), spec.slice(eq + 1)]);
        break;
      }
      case '--threads': options.threads = Number(value()); break;
      case '--warmup': options.warmup = Number(value()); break;
      case '--runs': options.runs = Number(value()); break;
      case '--output-dir': options.outputDir = value(); break;
      default:
        if (argv[i].startsWith('-') || options.model)
          throw new Error(`unexpected argument '${argv[i]}'`);
        options.model = argv[i];
    }
  }
  if (!options.model) throw new Error('no model given');
  return options;
}

function median(sorted) {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const session = await ort.InferenceSession.create(options.model, {
    intraOpNumThreads: options.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const feeds = {};
  for (const [name, file] of options.inputs) {
    const {dims, data, type} = readNpy(file);
    feeds[name] = new ort.Tensor(type, data, dims);
  }
  let results = await session.run(feeds);
  if (options.outputDir) {
    fs.mkdirSync(options.outputDir, {recursive: true});
    for (const [name, tensor] of Object.entries(results))
      writeNpy(path.join(options.outputDir, name.replace(/[^\w.-]/g, '_') + '.npy'), tensor);
  }
  for (let i = 0; i < options.warmup; ++i) results = await session.run(feeds);
  const times = [];
  for (let i = 0; i < options.runs; ++i) {
    const start = process.hrtime.bigint();
    results = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const version = require('onnxruntime-node/package.json').version;
  console.log(JSON.stringify({median_ms: median(times), min_ms: times[0],
    runs: options.runs, version}));
}

main().catch((error) => {
  console.error(`ort_run.js: error: ${error.message}`);
  process.exit(1);
});
