// Packs a Model2Vec model (a WordPiece `tokenizer.json` with a BERT
// normalizer, and `model.safetensors` holding one `embeddings` table of
// float32) into the file the addon reads (src/search/embedding/file.rs):
// the vocabulary, and each row as 8-bit integers with one scale per row
// (scale = the row's largest magnitude / 127, values rounded to nearest).
//
//   node scripts/model/pack-model.mjs <dir with tokenizer.json and model.safetensors> <out.m2v>
//
// It prints the SHA-256 of what it read and wrote, for the model package's
// README. It checks the pipeline is the one the addon reproduces and refuses
// anything else.

import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const [dir, out] = process.argv.slice(2)
if (!dir || !out) throw new Error('usage: pack-model.mjs <model dir> <out.m2v>')

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex')
const tokenizerBytes = readFileSync(join(dir, 'tokenizer.json'))
const modelBytes = readFileSync(join(dir, 'model.safetensors'))
const tokenizer = JSON.parse(tokenizerBytes)

const { normalizer, pre_tokenizer: preTokenizer, model } = tokenizer
const bertUncased =
  normalizer?.type === 'BertNormalizer' &&
  normalizer.clean_text === true &&
  normalizer.handle_chinese_chars === true &&
  normalizer.lowercase === true &&
  (normalizer.strip_accents === null || normalizer.strip_accents === true) &&
  preTokenizer?.type === 'BertPreTokenizer' &&
  model?.type === 'WordPiece' &&
  model.continuing_subword_prefix === '##' &&
  model.max_input_chars_per_word === 100
if (!bertUncased) throw new Error('not an uncased BERT WordPiece tokenizer: the addon would not tokenize it the same')

const tokens = []
for (const [token, id] of Object.entries(model.vocab)) tokens[id] = token
if (tokens.length !== Object.keys(model.vocab).length || tokens.some((t) => t === undefined)) {
  throw new Error('vocabulary ids are not 0..n-1')
}
if (tokens.some((t) => t.includes('\n'))) throw new Error('a token holds a newline')
const unknown = model.vocab[model.unk_token]
if (unknown === undefined) throw new Error(`no ${model.unk_token} in the vocabulary`)

const headerLength = Number(modelBytes.readBigUInt64LE(0))
const header = JSON.parse(modelBytes.subarray(8, 8 + headerLength).toString('utf8'))
const table = header.embeddings
if (!table || table.dtype !== 'F32' || table.shape.length !== 2 || table.shape[0] !== tokens.length) {
  throw new Error(`expected an F32 embeddings table of ${tokens.length} rows, got ${JSON.stringify(table)}`)
}
const extra = Object.keys(header).filter((k) => k !== 'embeddings' && k !== '__metadata__')
if (extra.length > 0) throw new Error(`tensors the addon does not apply: ${extra.join(', ')}`)
const [rows, dimensions] = table.shape
const start = 8 + headerLength + table.data_offsets[0]
const values = new Float32Array(modelBytes.buffer.slice(modelBytes.byteOffset + start, modelBytes.byteOffset + start + rows * dimensions * 4))

const scales = new Float32Array(rows)
const quantized = new Int8Array(rows * dimensions)
for (let row = 0; row < rows; row++) {
  let largest = 0
  for (let d = 0; d < dimensions; d++) largest = Math.max(largest, Math.abs(values[row * dimensions + d]))
  const scale = largest > 0 ? largest / 127 : 1
  scales[row] = scale
  for (let d = 0; d < dimensions; d++) {
    quantized[row * dimensions + d] = Math.max(-127, Math.min(127, Math.round(values[row * dimensions + d] / scale)))
  }
}

const vocabulary = Buffer.from(tokens.map((t) => `${t}\n`).join(''), 'utf8')
const head = Buffer.alloc(8 + 16)
head.write('M2VI8\0\0\x01', 0, 'latin1')
head.writeUInt32LE(rows, 8)
head.writeUInt32LE(dimensions, 12)
head.writeUInt32LE(unknown, 16)
head.writeUInt32LE(vocabulary.length, 20)
const file = Buffer.concat([head, vocabulary, Buffer.from(scales.buffer), Buffer.from(quantized.buffer)])
writeFileSync(out, file)

console.log(`tokenizer.json     ${sha256(tokenizerBytes)}  ${tokenizerBytes.length} bytes`)
console.log(`model.safetensors  ${sha256(modelBytes)}  ${modelBytes.length} bytes`)
console.log(`${out}  ${sha256(file)}  ${file.length} bytes (${rows} tokens x ${dimensions} dimensions)`)
