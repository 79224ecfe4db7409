'use strict'

/** A growable Int32Array: the tapes that cross into Rust are written with it. */
class TapeWriter {
  constructor(capacity = 64) {
    this.data = new Int32Array(Math.max(16, capacity))
    this.length = 0
  }

  push(value) {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2)
      grown.set(this.data)
      this.data = grown
    }
    this.data[this.length++] = value
  }

  set(index, value) {
    this.data[index] = value
  }

  /** The written part, without a copy. */
  finish() {
    return this.data.subarray(0, this.length)
  }
}

module.exports = { TapeWriter }
