#!/usr/bin/env bash
# Builds every cargo-fuzz target in fuzz/ and runs each for a bounded time,
# a few at once; exits non-zero if any target finds a crash, a hang, a leak
# or an oversized allocation (see fuzz/README.md).
#
#   scripts/fuzz.sh                  every target, FUZZ_SECONDS (30) each (releases a third)
#   scripts/fuzz.sh prompt_tape      only the targets named
#   FUZZ_SECONDS=600 FUZZ_JOBS=1 scripts/fuzz.sh tool_catalog
#
# Installs the pinned cargo-fuzz when it is missing. The machine's only Rust
# toolchain is stable, and cargo-fuzz needs nightly flags (-Zsanitizer and
# friends): RUSTC_BOOTSTRAP=1 lets the stable compiler take them.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_FUZZ_VERSION=0.13.2
SECONDS_PER_TARGET=${FUZZ_SECONDS:-30}
# Targets that saturate quickly get a fraction of the time.
declare -A TIME_DIVISOR=([releases]=3)
JOBS=${FUZZ_JOBS:-$(nproc)}
# Codegen units: a build twice as parallel, for slightly slower runs.
BUILD_FLAGS=(--codegen-units 16)
# Per input: no more than 10 s, no single allocation over 256 MB (the
# largest input is 4 KB, so that is an unbounded allocation), 2 GB in all.
# Inputs grow to the maximum length at once: the structured generators need
# bytes to build deep inputs.
LIBFUZZER_FLAGS=(-max_len=4096 -len_control=0 -timeout=10 -malloc_limit_mb=256 -rss_limit_mb=2048 -print_final_stats=1)

export RUSTC_BOOTSTRAP=1
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

if [[ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]]; then
  echo "fuzz: installing cargo-fuzz $CARGO_FUZZ_VERSION"
  # A debug build installs in half the time, and cargo-fuzz only drives cargo.
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --debug --quiet
fi

cd fuzz
if [[ $# -gt 0 ]]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo fuzz list)
fi
echo "fuzz: building ${targets[*]}"
start=$SECONDS
if [[ $# -gt 0 ]]; then
  for target in "${targets[@]}"; do cargo fuzz build "${BUILD_FLAGS[@]}" "$target"; done
else
  cargo fuzz build "${BUILD_FLAGS[@]}"
fi
echo "fuzz: built in $((SECONDS - start)) s; running each target ${SECONDS_PER_TARGET} s, ${JOBS} at a time"

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
touch "$logs/stamp"
run_target() {
  local target=$1 status=0
  local seconds=$((SECONDS_PER_TARGET / ${TIME_DIVISOR[$target]:-1}))
  # `cargo fuzz run` keeps the corpus in fuzz/corpus/TARGET and writes
  # failing inputs to fuzz/artifacts/TARGET/.
  cargo fuzz run "${BUILD_FLAGS[@]}" "$target" -- -max_total_time="$((seconds > 0 ? seconds : 1))" "${LIBFUZZER_FLAGS[@]}" \
    >"$logs/$target.log" 2>&1 || status=$?
  echo "$status" >"$logs/$target.status"
}

start=$SECONDS
for target in "${targets[@]}"; do
  while [[ $(jobs -rp | wc -l) -ge $JOBS ]]; do wait -n || true; done
  run_target "$target" &
done
wait

passed=0
failed=0
for target in "${targets[@]}"; do
  if [[ "$(cat "$logs/$target.status" 2>/dev/null)" == 0 ]]; then
    passed=$((passed + 1))
    stats=$(grep -E '^stat::(number_of_executed_units|new_units_added):' "$logs/$target.log" | awk '{print $2}' | paste -sd/)
    echo "fuzz: $target ok (runs/new units: $stats)"
  else
    failed=$((failed + 1))
    # From the sanitizer's or the panic's first words to cargo-fuzz's summary.
    log="$logs/$target.log"
    first=$(grep -nE '==[0-9]+== ?ERROR|panicked at' "$log" | head -n 1 | cut -d: -f1)
    echo "fuzz: $target FAILED; its log from line ${first:-1}:"
    sed -n "${first:-1},/^Error: Fuzz target exited/p" "$log" | head -n 120 | sed 's/^/    /'
    find "artifacts/$target" -type f -newer "$logs/stamp" 2>/dev/null | while read -r artifact; do
      echo "    reproduce, in fuzz/: RUSTC_BOOTSTRAP=1 cargo fuzz run ${BUILD_FLAGS[*]} $target $artifact"
    done
  fi
done
echo "fuzz: ran for $((SECONDS - start)) s"
echo "fuzz: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
