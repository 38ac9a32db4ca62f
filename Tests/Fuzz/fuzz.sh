#!/usr/bin/env bash
# Builds the libFuzzer harness of Tests/Fuzz and runs one target or all of them.
#
#   bash Tests/Fuzz/fuzz.sh [TARGET|all] [SECONDS] [extra libFuzzer flags...]
#
# Targets: catalog receipt detect jws verifyreceipt pkcs7 stripe play verify structured stalls story (default: all; 60 s each).
# Exits 1 when a target found a crash, timeout or out-of-memory input (the artifact path is
# printed), 2 on a usage or build error. See Tests/Fuzz/README.md.
#
# Environment: SWIFTC (default: swiftc on PATH, else /opt/swift/usr/bin/swiftc);
# ENTITLE_FIXTURES (default ../shared/fixtures) for extra seeds; FUZZ_REBUILD=1 forces a build;
# FUZZ_NO_BUILD=1 runs the binary already in .build/fuzz as it is; FUZZ_SANITIZE=fuzzer builds
# without AddressSanitizer (default fuzzer,address). `verify` is built with the SystemCrypto trait's
# code and libcrypto when pkg-config finds libcrypto (libssl-dev); otherwise it runs the path that
# reports verification unavailable.

set -uo pipefail

ALL_TARGETS=(catalog receipt detect jws verifyreceipt pkcs7 stripe play verify structured stalls story)

usage() {
    echo "usage: bash Tests/Fuzz/fuzz.sh [TARGET|all] [SECONDS] [extra libFuzzer flags...]" >&2
    echo "targets: ${ALL_TARGETS[*]}" >&2
    exit 2
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2

TARGET=${1:-all}
SECONDS_PER_TARGET=${2:-60}
[[ $# -ge 1 ]] && shift
[[ $# -ge 1 ]] && shift
EXTRA=("$@")
[[ $SECONDS_PER_TARGET =~ ^[0-9]+$ ]] || usage
if [[ $TARGET == all ]]; then
    TARGETS=("${ALL_TARGETS[@]}")
elif [[ " ${ALL_TARGETS[*]} " == *" $TARGET "* ]]; then
    TARGETS=("$TARGET")
else
    usage
fi

OUT=$ROOT/.build/fuzz
# FUZZ_SANITIZE=fuzzer drops AddressSanitizer: Swift's own checks (overflow, bounds) still trap,
# at about twice the executions per second. Each setting gets its own binary.
SANITIZE=${FUZZ_SANITIZE:-fuzzer,address}
[[ $SANITIZE =~ ^fuzzer(,[a-z]+)*$ ]] || { echo "fuzz.sh: FUZZ_SANITIZE must start with fuzzer (e.g. fuzzer or fuzzer,address)" >&2; exit 2; }
BIN=$OUT/entitle-fuzz
[[ $SANITIZE == fuzzer,address ]] || BIN=$OUT/entitle-fuzz-${SANITIZE//,/-}
FIXTURES=${ENTITLE_FIXTURES:-$ROOT/../shared/fixtures}
mkdir -p "$OUT"

# MARK: Toolchain

SWIFTC=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
[[ -x $SWIFTC ]] || { echo "fuzz.sh: no swiftc (set SWIFTC or put Swift on PATH)" >&2; exit 2; }
TOOLCHAIN_BIN=$(dirname "$(readlink -f "$SWIFTC")")
SYMBOLIZER=$TOOLCHAIN_BIN/llvm-symbolizer
LINKER_FLAGS=()
[[ -x $TOOLCHAIN_BIN/ld.lld ]] && LINKER_FLAGS=(-use-ld=lld)

apt_install() {
    command -v apt-get >/dev/null || return 1
    local sudo=()
    if [[ $(id -u) != 0 ]]; then
        command -v sudo >/dev/null && sudo -n true 2>/dev/null || return 1
        sudo=(sudo -n)
    fi
    echo "fuzz.sh: installing $*" >&2
    "${sudo[@]}" apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "$@" >&2
}

# libFuzzer is C++: linking needs the libstdc++ of the GCC installation clang selects.
# The sanitizer runtimes themselves ship with the Swift toolchain.
ensure_link_dependencies() {
    local clang=$TOOLCHAIN_BIN/clang gcc_dir version
    [[ -x $clang ]] || return 0
    gcc_dir=$("$clang" -v 2>&1 | sed -n 's/^Selected GCC installation: //p')
    if [[ -z $gcc_dir ]]; then
        apt_install libgcc-12-dev libstdc++-12-dev binutils || apt_install g++ ||
            echo "fuzz.sh: warning: no GCC installation found; install libstdc++-dev if linking fails" >&2
        return 0
    fi
    version=$(basename "$gcc_dir")
    if [[ ! -e $gcc_dir/libstdc++.so && ! -e $gcc_dir/libstdc++.a ]]; then
        apt_install "libstdc++-$version-dev" ||
            echo "fuzz.sh: warning: $gcc_dir has no libstdc++.so; install libstdc++-$version-dev if linking fails" >&2
    fi
}

# MARK: Build

SOURCES=()
while IFS= read -r file; do SOURCES+=("$file"); done < <(find Sources/Entitle Tests/Fuzz -name '*.swift' | LC_ALL=C sort)
# The `story` target's code from the command-line target: compiled into this one module, so the
# snapshot drops their `import Entitle` (see build), and so does the fingerprint.
STORY_SOURCES=(Sources/EntitleCommandLine/Stories/Story.swift Sources/EntitleCommandLine/Stories/StoryTeller.swift
               Sources/EntitleCommandLine/TestRunner/JSONShapeReader.swift)
SOURCES+=("${STORY_SOURCES[@]}")
# The SystemCrypto trait's code, as `swift build --traits SystemCrypto` compiles it: the
# condition, the system module (module.modulemap and its header) and libcrypto.
CRYPTO_FILES=()
CRYPTO_FLAGS=()
if command -v pkg-config >/dev/null && pkg-config --exists libcrypto 2>/dev/null; then
    CRYPTO_FILES=(Sources/CSystemCrypto/module.modulemap Sources/CSystemCrypto/shim.h)
    CRYPTO_FLAGS=(-D SystemCrypto -I Sources/CSystemCrypto)
    for flag in $(pkg-config --cflags-only-I libcrypto) $(pkg-config --libs-only-L libcrypto); do
        case $flag in -I*) CRYPTO_FLAGS+=(-Xcc "$flag") ;; *) CRYPTO_FLAGS+=("$flag") ;; esac
    done
    CRYPTO_FLAGS+=(-lcrypto)
fi
SWIFT_FLAGS=(-sanitize=$SANITIZE -parse-as-library -module-name EntitleFuzz -package-name entitle -swift-version 6 -O -g
             "${LINKER_FLAGS[@]}" "${CRYPTO_FLAGS[@]}")

fingerprint() {  # of the sources in directory $1, the compiler and the flags
    (cd "$1" && cat "${SOURCES[@]}" "${CRYPTO_FILES[@]}" | sed '/^import Entitle$/d'; "$SWIFTC" --version 2>&1; echo "${SWIFT_FLAGS[*]}") |
        sha256sum | cut -d' ' -f1
}

build() {
    if [[ ${FUZZ_NO_BUILD:-0} == 1 && -x $BIN ]]; then
        echo "fuzz.sh: FUZZ_NO_BUILD=1: running $BIN as it is"
        return 0
    fi
    local current
    current=$(fingerprint "$ROOT")
    if [[ ${FUZZ_REBUILD:-0} != 1 && -x $BIN && -f $BIN.fingerprint && $(cat "$BIN.fingerprint") == "$current" ]]; then
        echo "fuzz.sh: $BIN is up to date"
        return 0
    fi
    ensure_link_dependencies
    # Compile a snapshot, so an editor saving a file mid-build cannot break the build, and the
    # fingerprint is that of what was compiled.
    local snapshot=$OUT/src
    rm -rf "$snapshot" && mkdir -p "$snapshot"
    cp --parents "${SOURCES[@]}" "${CRYPTO_FILES[@]}" "$snapshot/" || exit 2
    local file
    for file in "${STORY_SOURCES[@]}"; do sed -i '/^import Entitle$/d' "$snapshot/$file"; done
    local compiled
    compiled=$(fingerprint "$snapshot")
    echo "fuzz.sh: building $BIN (${#SOURCES[@]} files)"
    echo "  (cd $snapshot && $SWIFTC ${SWIFT_FLAGS[*]} <Sources/Entitle/**/*.swift> Tests/Fuzz/*.swift <story files> -o $BIN)"
    local started=$SECONDS
    if ! (cd "$snapshot" && "$SWIFTC" "${SWIFT_FLAGS[@]}" "${SOURCES[@]}" -o "$BIN.new") >"$OUT/build.log" 2>&1; then
        grep -v "Cannot export local symbol" "$OUT/build.log" | head -60 >&2
        echo "fuzz.sh: build failed (full log: $OUT/build.log)" >&2
        exit 2
    fi
    mv "$BIN.new" "$BIN"
    echo "$compiled" >"$BIN.fingerprint"
    echo "fuzz.sh: built in $((SECONDS - started)) s"
}

# MARK: Corpora

max_len() {
    case $1 in
        catalog) echo 16384 ;;
        jws) echo 32768 ;;
        *) echo 65536 ;;
    esac
}

# Relevant example files for a target, one path a line (missing directories are skipped).
example_files() {
    local dirs=() patterns=(-type f)
    case $1 in
        catalog) dirs=(products Tests/EntitleTests/Corpus/schema-invalid/catalogs); patterns+=(-name '*.json' -not -path '*/receipts/*') ;;
        receipt) dirs=(products/receipts Tests/EntitleTests/Corpus/schema-invalid/receipts) ;;
        detect) dirs=(products/receipts products/store-data "$FIXTURES/verifyreceipt" "$FIXTURES/storekit2" "$FIXTURES/receipts-pkcs7") ;;
        jws) dirs=("$FIXTURES/storekit2") ;;
        verifyreceipt) dirs=("$FIXTURES/verifyreceipt") ;;
        pkcs7) dirs=("$FIXTURES/receipts-pkcs7"); patterns+=(-not -name '*.json') ;;
        stripe) dirs=(products/store-data); patterns+=(-name 'stripe-*.json') ;;
        play) dirs=(products/store-data); patterns+=(-name 'play-*.json') ;;
        verify) dirs=("$FIXTURES/storekit2" "$FIXTURES/receipts-pkcs7"); patterns+=(-not -name '*.decoded.json') ;;
        story) dirs=(products/stories) ;;
        structured|stalls) return 0 ;;
    esac
    for dir in "${dirs[@]}"; do
        [[ -d $dir ]] && find "$dir" "${patterns[@]}" -size -"$(max_len "$1")"c
    done
    return 0
}

prepare_corpus() {  # copies seeds and example files in (never overwriting what the fuzzer kept)
    local target=$1 corpus=$OUT/corpus/$1 file name
    mkdir -p "$corpus" "$OUT/artifacts/$target"
    local seeds=Tests/Fuzz/Seeds/$target
    [[ $target == stalls ]] && seeds=Tests/Fuzz/Seeds/structured
    if [[ -d $seeds ]]; then
        for file in "$seeds"/*; do
            [[ -f $file ]] && cp -n "$file" "$corpus/seed-$(basename "$file")"
        done
    fi
    while IFS= read -r file; do
        name=$(basename "$(dirname "$file")")-$(basename "$file")
        cp -n "$file" "$corpus/example-$name"
    done < <(example_files "$target")
}

# MARK: Running

# The one-line reason an artifact crashes: the fatalError message, or the Swift runtime failure
# (arithmetic overflow, index out of range, ...) named in the symbolized stack, or the sanitizer's.
crash_reason() {
    local log=$1 line site
    line=$(grep -m1 -oE "Fatal error: .*" "$log" | cut -c1-400)
    [[ -z $line ]] && line=$(grep -m1 -oE "Swift runtime failure: [A-Za-z0-9 ]*[A-Za-z0-9]" "$log")
    [[ -z $line ]] && line=$(grep -m1 -oE "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer): .*" "$log")
    # The innermost frame in the library's sources.
    site=$(grep -E "^ *#[0-9]+ " "$log" | grep -m1 -oE "Sources/Entitle/[^ ]*:[0-9]+(:[0-9]+)?")
    echo "${line:-unknown}${site:+ (at $site)}"
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-symbolize=1:handle_abort=1}
# The Swift runtime's own crash backtracer fights the sanitizer's handler; libFuzzer reports.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
[[ -x $SYMBOLIZER ]] && export ASAN_SYMBOLIZER_PATH=$SYMBOLIZER
export ENTITLE_FUZZ_PRODUCTS=$ROOT/products
export ENTITLE_FUZZ_FIXTURES=$FIXTURES

FINDINGS=()
SUMMARY=()

run_target() {
    local target=$1 corpus=$OUT/corpus/$1 artifacts=$OUT/artifacts/$1 rundir=$OUT/run/$1
    prepare_corpus "$target"
    rm -rf "$rundir" && mkdir -p "$rundir"
    local marker=$rundir/.started log=$rundir/fuzz.log
    touch "$marker"
    local flags=(
        -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$target")"
        -print_final_stats=1 -artifact_prefix="$artifacts/"
        # Mutate slow inputs less (10x the executions for `structured`, whose corpus otherwise
        # fills with catalogs of thousands of products); the repeat choice still makes new ones.
        -entropic_scale_per_exec_time=1
        "${EXTRA[@]}" "$corpus"
    )
    echo
    echo "== $target: ${SECONDS_PER_TARGET} s, corpus $corpus ($(find "$corpus" -type f | wc -l) files)"
    local started=$SECONDS status
    # From the run directory: with -jobs, libFuzzer writes fuzz-N.log files into the current one.
    (cd "$rundir" && ENTITLE_FUZZ_TARGET=$target "$BIN" "${flags[@]}") >"$log" 2>&1
    status=$?
    local elapsed=$((SECONDS - started))
    # Executions: the final stats of the run, or with -jobs of every job's log (fuzz-N.log; the
    # main log repeats them).
    local execs rate stat_logs=("$log")
    compgen -G "$rundir/fuzz-*.log" >/dev/null && stat_logs=("$rundir"/fuzz-*.log)
    execs=$(cat "${stat_logs[@]}" | grep -oE "stat::number_of_executed_units: *[0-9]+" | awk '{s += $2} END {print s + 0}')
    rate=$(awk -v e="$execs" -v t="$elapsed" 'BEGIN { printf "%.0f", (t > 0 ? e / t : e) }')
    grep -hE "stat::number_of_executed_units|stat::average_exec_per_sec" "${stat_logs[@]}" | sed 's/^/   /'
    local line="$target: $execs executions in $elapsed s ($rate/s)"
    local found=()
    while IFS= read -r artifact; do found+=("$artifact"); done < <(
        find "$artifacts" -maxdepth 1 -type f -newer "$marker" \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | sort)
    if ((${#found[@]} > 0)); then
        for artifact in "${found[@]}"; do
            local reason kind
            kind=$(basename "$artifact" | cut -d- -f1)
            if [[ $kind == crash || $kind == leak ]]; then
                # Reproduce to name the failure (the fuzzing log may interleave several jobs).
                (ENTITLE_FUZZ_TARGET=$target timeout 120 "$BIN" "$artifact") >"$artifact.log" 2>&1
                reason=$(crash_reason "$artifact.log")
            else
                reason="$kind (over -timeout=10 s or -rss_limit_mb=2048)"
            fi
            FINDINGS+=("$target: $artifact"$'\n'"    $reason"$'\n'"    reproduce: ENTITLE_FUZZ_TARGET=$target $BIN $artifact")
        done
        line+=" -- FOUND ${#found[@]}"
    elif ((status != 0)); then
        FINDINGS+=("$target: libFuzzer exited with status $status and no artifact; see $log")
        line+=" -- FAILED (status $status)"
    fi
    echo "   $line"
    SUMMARY+=("$line")
}

build
if [[ " ${TARGETS[*]} " == *" verify "* ]] && ((${#CRYPTO_FLAGS[@]} == 0)); then
    echo "fuzz.sh: note: no libcrypto (pkg-config libcrypto); \`verify\` runs without the SystemCrypto trait's code (install libssl-dev)"
fi
for target in "${TARGETS[@]}"; do run_target "$target"; done

echo
echo "== summary"
for line in "${SUMMARY[@]}"; do echo "  $line"; done
if ((${#FINDINGS[@]} > 0)); then
    echo
    echo "== findings (copy each to Tests/EntitleTests/Corpus/fuzz-found/ with its expected outcome)"
    for finding in "${FINDINGS[@]}"; do echo "  $finding"; done
    exit 1
fi
exit 0
