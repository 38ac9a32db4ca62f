#!/usr/bin/env bash
# The public API of `import Entitle` against the baseline in .ci/api-baseline (Versioning.md): a
# breaking change fails unless LibraryVersion.current has left the baseline's compatibility (a new
# major version, or before 1.0.0 a new minor one). `swift package diagnose-api-breaking-changes`
# builds the baseline commit in a scratch folder of its own and compares the two APIs.
set -euo pipefail
cd "$(dirname "$0")/.."

baseline_commit=$(awk '$1 == "commit" { print $2 }' .ci/api-baseline)
baseline_version=$(awk '$1 == "version" { print $2 }' .ci/api-baseline)
current=$(sed -n 's/.*static let current = LibraryVersion(major: \([0-9]*\), minor: \([0-9]*\), patch: \([0-9]*\)).*/\1.\2.\3/p' \
  Sources/Entitle/LibraryVersion.swift)
if [ -z "$baseline_commit" ] || [ -z "$baseline_version" ] || [ -z "$current" ]; then
  echo "api check: cannot read the baseline (.ci/api-baseline) or LibraryVersion.current"; exit 1
fi
# What a change must keep: the major number, or before 1.0.0 the minor one too.
compatibility() { local major=${1%%.*} rest=${1#*.}; if [ "$major" = 0 ]; then echo "0.${rest%%.*}"; else echo "$major"; fi; }
if [ "$(compatibility "$current")" != "$(compatibility "$baseline_version")" ]; then
  echo "api check: version $current leaves $baseline_version's compatibility; breaking changes are allowed (commit a new baseline)"
  exit 0
fi
# A shallow clone may lack the baseline commit.
if ! git cat-file -e "$baseline_commit^{commit}" 2>/dev/null; then
  git fetch --quiet --unshallow 2>/dev/null || git fetch --quiet origin "$baseline_commit" || true
fi
started=$SECONDS
# The tool also compares `package` declarations, which are not API (Versioning.md): a breakage
# whose type is declared `package` in the baseline or now is set aside, and said so.
report=$(mktemp)
trap 'rm -f "$report"' EXIT
swift package diagnose-api-breaking-changes "$baseline_commit" --products Entitle >"$report" 2>&1 || true
if ! grep -q "breaking changes detected\|No breaking changes detected" "$report"; then
  cat "$report"
  echo "api check: the comparison did not run"
  exit 1
fi
breaking=0
while IFS= read -r line; do
  # `API breakage: <kind> <Type>.<member>... has been ...`
  name=$(echo "$line" | sed -n 's/.*API breakage: [a-z]* \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p')
  declared="^[[:space:]]*package ((final|indirect) )?(enum|struct|class|protocol|actor) $name\b"
  if [ -n "$name" ] && { grep -rqE "$declared" Sources/Entitle || git grep -qE "$declared" "$baseline_commit" -- Sources/Entitle; }; then
    echo "api check: not API (\`package\` $name): ${line#*API breakage: }"
  else
    echo "$line"
    breaking=$((breaking + 1))
  fi
done < <(grep "API breakage:" "$report")
if [ "$breaking" -gt 0 ]; then
  echo "api check: $breaking breaking change(s) of the Entitle library since $baseline_version ($baseline_commit)"
  exit 1
fi
echo "api check: no breaking change of the Entitle library since $baseline_version ($baseline_commit), $((SECONDS - started)) s"
