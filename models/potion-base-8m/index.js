'use strict'
// The model file mastra-native-processors reads for search.ranking 'hybrid'
// (its format: src/search/embedding/file.rs in that repository).
const { join } = require('node:path')

module.exports = {
  name: 'potion-base-8M',
  path: join(__dirname, 'potion-base-8m.m2v'),
  dimensions: 256,
}
