// SPDX-License-Identifier: Apache-2.0
// ONNX Runtime's side of conformance.py's `ort` mode: runs one ONNX test case's model
// through the Node binding (onnxruntime-node, found through NODE_PATH) on .npy inputs of
// any numeric, bool or text dtype and writes every output as .npy, so that the runner
// compares ORT's outputs with the suite's exactly as it compares mxc's.
//
//   node ort_case.js MODEL.onnx --output-dir DIR [--input NAME=FILE.npy]...
//
// Exit 0 with the outputs written; 1 with the error on stderr (a session or run failure,
// or a value the binding cannot carry).
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const NPY_MAGIC = '\x93NUMPY';

// .npy descr -> [ORT type, typed array, bytes per element]
const TYPES = {
  '<f4': ['float32', Float32Array, 4], '<f8': ['float64', Float64Array, 8],
  '<f2': ['float16', Uint16Array, 2],
  '|i1': ['int8', Int8Array, 1], '<i2': ['int16', Int16Array, 2],
  '<i4': ['int32', Int32Array, 4], '<i8': ['int64', BigInt64Array, 8],
  '|u1': ['uint8', Uint8Array, 1], '<u2': ['uint16', Uint16Array, 2],
  '<u4': ['uint32', Uint32Array, 4], '<u8': ['uint64', BigUint64Array, 8],
  '|b1': ['bool', Uint8Array, 1],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== NPY_MAGIC) throw new Error(`${file}: not a .npy file`);
  const v1 = buf[6] === 1;
  const headerLen = v1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (v1 ? 10 : 12) + headerLen;
  const header = buf.toString('latin1', v1 ? 10 : 12, start);
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order`);
  const descr = header.match(/'descr':\s*'([^']*)'/)[1];
  const dims = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',')
      .map((d) => d.trim()).filter((d) => d).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const text = descr.match(/^<U(\d+)$/);
  if (text) {  // fixed-width UTF-32 strings
    const width = Number(text[1]), data = [];
    for (let i = 0; i < count; ++i) {
      let s = '';
      for (let k = 0; k < width; ++k) {
        const cp = buf.readUInt32LE(start + 4 * (i * width + k));
        if (cp === 0) break;
        s += String.fromCodePoint(cp);
      }
      data.push(s);
    }
    return new ort.Tensor('string', data, dims);
  }
  const t = TYPES[descr];
  if (!t) throw new Error(`${file}: dtype ${descr} is not supported by this runner`);
  const [type, Array_, size] = t;
  const data = new Array_(count);
  Buffer.from(data.buffer).set(buf.subarray(start, start + size * count));
  return new ort.Tensor(type, type === 'bool' ? new Uint8Array(data.buffer) : data, dims);
}

function writeNpy(file, tensor) {
  const shape = tensor.dims.length === 1 ? `${tensor.dims[0]},` : tensor.dims.join(', ');
  let descr, bytes;
  if (tensor.type === 'string') {
    const width = Math.max(1, ...tensor.data.map((s) => [...s].length));
    descr = `<U${width}`;
    bytes = Buffer.alloc(4 * width * tensor.data.length);
    tensor.data.forEach((s, i) => [...s].forEach((ch, k) =>
      bytes.writeUInt32LE(ch.codePointAt(0), 4 * (i * width + k))));
  } else {
    descr = Object.keys(TYPES).find((d) => TYPES[d][0] === tensor.type);
    if (!descr) throw new Error(`output type ${tensor.type} is not supported by this runner`);
    const data = tensor.data;
    bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write(NPY_MAGIC, 0, 'latin1');
  head[6] = 1;
  head.writeUInt16LE(header.length, 8);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), bytes]));
}

async function main(argv) {
  let model = null, outputDir = null;
  const feeds = {};
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--output-dir') {
      outputDir = argv[++i];
    } else if (argv[i] === '--input') {
      const spec = argv[++i], eq = spec.indexOf('=');
      feeds[spec.slice(0, eq)] = readNpy(spec.slice(eq + 1));
    } else {
      model = argv[i];
    }
  }
  if (!model || !outputDir) throw new Error('usage: ort_case.js MODEL --output-dir DIR [--input NAME=FILE]...');
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all'});
  const results = await session.run(feeds);
  fs.mkdirSync(outputDir, {recursive: true});
  for (const name of session.outputNames) {
    const file = name.replace(/[^A-Za-z0-9._-]/g, '_');
    writeNpy(path.join(outputDir, (!file || file.startsWith('.') ? '_' : '') + file + '.npy'),
             results[name]);
  }
}

main(process.argv.slice(2)).catch((e) => {
  process.stderr.write(`ort: error: ${String(e.message || e).split('\n')[0]}\n`);
  process.exit(1);
});
