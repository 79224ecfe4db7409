'use strict'
// The native addon, loaded once for every module of the package.

module.exports = require('../binding.js')
