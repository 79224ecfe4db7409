'use strict'
// The model file mastra-native-processors reads for search.ranking 'hybrid'
// (its format: src/search/embedding/file.rs in that repository).
const { join } = require('node:path')

module.exports = {
  name: 'potion-base-2M',
  path: join(__dirname, 'potion-base-2m.m2v'),
  dimensions: 64,
}
