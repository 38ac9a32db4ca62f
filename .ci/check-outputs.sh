#!/usr/bin/env bash
# What entitle prints with `--format json` must match the output schemas: runs `check`, `explain`,
# `diff`, `consumption` and `retention` over the example data in products/ (every receipt at
# several instants, the stories, every case of products/*.test.json with its consumption and
# retention requests, modified copies of the catalogs, a few receipts made here for members the
# examples do not reach, and expected failures, which print {"errors": [...]}), writes each output
# to a temporary directory, and checks every output of a kind with check-jsonschema against
# schemas/<kind>.output.schema.json.
#
#   bash .ci/check-outputs.sh path/to/entitle
#
# Exits 1 when a command exits otherwise than expected or an output does not match its schema.
# ENTITLE_KEEP_OUTPUTS=1 keeps the outputs (their directory is printed).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: bash .ci/check-outputs.sh path/to/entitle" >&2
  exit 2
fi
case "$1" in
  /*) entitle=$1 ;;
  *) entitle=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") ;;
esac
if [ ! -x "$entitle" ]; then
  echo "check-outputs: $1 is not an executable" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
started=$SECONDS

if ! command -v check-jsonschema >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check check-jsonschema
fi

work=$(mktemp -d)
if [ "${ENTITLE_KEEP_OUTPUTS:-}" = 1 ]; then
  echo "check-outputs: outputs kept in $work"
else
  trap 'rm -rf "$work"' EXIT
fi
kinds=(check explain diff consumption retention)
for kind in "${kinds[@]}" ofrep; do mkdir -p "$work/out/$kind"; done
mkdir -p "$work/in"
runs=0

# run KIND NAME EXPECTED-EXIT COMMAND ARGS...: runs `entitle COMMAND ARGS... --format json` in the
# background (as many at once as there are cores) with its standard output in out/KIND/NAME.json;
# an exit other than EXPECTED-EXIT, or no output, is written to failed/ (`settle` waits for them all).
parallel=$(nproc 2>/dev/null || echo 2)
mkdir -p "$work/err" "$work/failed"
run() {
  local kind=$1 name=$2 expected=$3
  shift 3
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  runs=$((runs + 1))
  (
    status=0
    # OpenFeature answers are `check --format ofrep`; every other kind is `--format json`.
    format=json
    if [ "$kind" = ofrep ]; then format=ofrep; fi
    "$entitle" "$@" --format "$format" </dev/null >"$work/out/$kind/$name.json" 2>"$work/err/$kind-$name" || status=$?
    if [ "$status" -ne "$expected" ]; then
      { echo "check-outputs: \`entitle $*\` exited $status, not $expected"; sed 's/^/  /' "$work/err/$kind-$name"; } >"$work/failed/$kind-$name"
    elif [ ! -s "$work/out/$kind/$name.json" ]; then
      echo "check-outputs: \`entitle $*\` printed nothing" >"$work/failed/$kind-$name"
    fi
  ) &
}
settle() { wait; }

# -- inputs made here: what the example receipts do not reach --------------------------------

# A subscription with a monthly commitment, an intro offer, a renewal to another product at a
# known price; a pending purchase; a family-shared pass that is not shareable; a grant.
cat >"$work/in/starquest-extras.json" <<'EOF'
{"app": "com.example.starquest",
 "transactions": [
  {"productId": "com.example.starquest.vip.monthly", "transactionId": "8100", "originalTransactionId": "8100",
   "purchaseDate": "2026-03-02T09:00:00Z", "expiresDate": "2026-04-02T09:00:00Z",
   "offerType": "introductory", "offerDiscountType": "pay-as-you-go", "offerPeriod": "P3M",
   "billingPlan": "monthly", "commitment": {"period": 1, "periods": 12, "endsAt": "2027-03-02T09:00:00Z"}},
  {"productId": "com.example.starquest.noads", "transactionId": "8200", "purchaseDate": "2026-03-03T00:00:00Z", "pending": true},
  {"productId": "com.example.starquest.season.1", "transactionId": "8300", "purchaseDate": "2026-03-04T00:00:00Z",
   "ownership": "family-shared"}],
 "renewals": [
  {"productId": "com.example.starquest.vip.monthly", "originalTransactionId": "8100", "willRenew": true,
   "renewsTo": "com.example.starquest.vip.yearly", "renewalPrice": "49.99", "currency": "EUR", "signedDate": "2026-03-10T00:00:00Z"}],
 "grants": [{"id": "support-42", "features": ["season.pass"], "start": "2026-03-05T00:00:00Z", "end": "2026-04-05T00:00:00Z"}]}
EOF
# Stencils bought and spent (ConsumptionReplyTests): the notification's purchase is charged after it.
cat >"$work/in/stencils-spent.json" <<'EOF'
{"app": "com.example.diagrams", "transactions": [
  {"productId": "com.example.diagrams.stencils.10", "transactionId": "1000", "purchaseDate": "2026-03-01T00:00:00Z"}],
 "consumptions": [{"id": "c1", "currency": "stencils", "amount": 14, "date": "2026-03-22T12:00:00Z"}]}
EOF
# VIP Plus, whose retention rule suggests plain VIP (an alternate product).
cat >"$work/in/vip-plus.story.json" <<'EOF'
{"app": "com.example.starquest", "story": [{"at": "2026-03-01", "subscribe": "com.example.starquest.vip.plus.monthly", "renewals": 2}]}
EOF
"$entitle" receipt --catalog products "$work/in/vip-plus.story.json" >"$work/in/vip-plus.json"
# A Play consumable whose refund review lists the consumptions charged to the order (the examples
# have no Play consumable).
mkdir -p "$work/in/coins"
cat >"$work/in/coins/catalog.json" <<'EOF'
{"app": "com.example.coins", "features": {"pro": "Pro"}, "currencies": {"coins": "Coins"},
 "refundPreference": {"grantFullBelow": 10, "grantProratedBelow": 50},
 "products": [{"id": "coins_10", "store": "play", "type": "consumable", "name": "10 coins", "credits": {"coins": 10}}]}
EOF
cat >"$work/in/coins-receipt.json" <<'EOF'
{"app": "com.example.coins", "store": "play",
 "transactions": [
  {"productId": "coins_10", "transactionId": "GPA.1", "purchaseDate": "2026-03-01T00:00:00Z", "quantity": 2, "account": "acct-1"},
  {"productId": "coins_10", "transactionId": "GPA.2", "purchaseDate": "2026-03-02T00:00:00Z", "account": "acct-1"}],
 "consumptions": [
  {"id": "c1", "currency": "coins", "amount": 5, "date": "2026-03-03T00:00:00Z"},
  {"id": "c2", "currency": "coins", "amount": 10, "date": "2026-03-04T00:00:00Z"},
  {"id": "c3", "currency": "coins", "amount": 8, "date": "2026-03-05T00:00:00Z"}]}
EOF
# Retention requests (Apple's decoded realtime request): the shared fixture's, pointed at an
# example chain, when the fixtures are there; and some written here.
fixtures=${ENTITLE_FIXTURES:-../shared/fixtures}
realtime="$fixtures/storekit2/apple-app-store-server-library-swift/models/decodedRealtimeRequest.json"
if [ -f "$realtime" ]; then
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); r.update(originalTransactionId="6000", productId="com.example.diagrams.sync.monthly"); json.dump(r, open(sys.argv[2], "w"))' \
    "$realtime" "$work/in/request-fixture.json"
fi
echo '{"originalTransactionId": "6000", "productId": "com.example.diagrams.sync.monthly", "userLocale": "de-AT", "requestIdentifier": "q-6000", "environment": "Production"}' >"$work/in/request-6000.json"
echo '{"originalTransactionId": "2001", "productId": "com.example.diagrams.sync.monthly", "userLocale": "en-US", "requestIdentifier": "q-2001"}' >"$work/in/request-2001.json"
echo '{"originalTransactionId": "777", "productId": "com.example.diagrams.sync.monthly", "requestIdentifier": "q-777"}' >"$work/in/request-777.json"
echo '{"originalTransactionId": "story-1", "productId": "com.example.starquest.vip.plus.monthly", "userLocale": "en-GB", "requestIdentifier": "q-vip"}' >"$work/in/request-vip.json"
echo '{"productId": "com.example.diagrams.sync.monthly", "requestIdentifier": "q-bad"}' >"$work/in/request-bad.json"
echo '{"app": "com.example.diagrams", "transactions": [{"productId": 3}]}' >"$work/in/bad-receipt.json"

# -- check and explain: every receipt at three instants ----------------------------------------

instants=(2025-07-15T00:00:00Z 2026-01-15T09:00:00Z 2026-06-01T00:00:00.001Z)
for receipt in products/receipts/*.json; do
  name=$(basename "$receipt" .json)
  for at in "${instants[@]}"; do
    run check "$name-$at" 0 check --catalog products --receipt "$receipt" --at "$at"
    run ofrep "$name-$at" 0 check --catalog products --receipt "$receipt" --at "$at"
    run explain "$name-$at" 0 explain --catalog products --receipt "$receipt" --at "$at"
  done
done
# Several receipts and apps at once; a storefront; one store's offers; the store data; the receipts made here.
both=(--receipt products/receipts/diagrams-trial.json --receipt products/receipts/diagrams6-owner.json)
run check readme-example 0 check --catalog products "${both[@]}" --at 2026-01-15T09:00:00Z
quill=(--receipt products/receipts/quill-writer.json --receipt products/receipts/quill-team-web.json)
for at in 2025-12-31T00:00:00Z 2026-01-10T00:00:00Z 2026-02-10T00:00:00Z 2026-03-10T00:00:00Z; do
  run check "quill-$at" 0 check --catalog products "${quill[@]}" --at "$at"
  run ofrep "quill-$at" 0 check --catalog products "${quill[@]}" --at "$at"
  run explain "quill-limit-$at" 0 explain --catalog products "${quill[@]}" --limit seats --at "$at"
done
run ofrep customers 0 check --catalog products --customers products/receipts --at 2026-01-15T09:00:00Z
run check storefront-usa 0 check --catalog products "${both[@]}" --storefront USA --at 2026-01-15T09:00:00Z
for store in app-store play stripe; do
  run check "store-$store" 0 check --catalog products --receipt products/receipts/diagrams-web.json --store "$store" --at 2026-06-01T00:00:00Z
done
store_data=(--receipt products/store-data/stripe-events.json --receipt products/store-data/play-record.json)
for at in 2026-04-20T00:00:00Z 2026-10-01T00:00:00Z; do
  run check "store-data-$at" 0 check --catalog products "${store_data[@]}" --at "$at"
  run explain "store-data-$at" 0 explain --catalog products "${store_data[@]}" --at "$at"
done
for at in 2026-03-15T00:00:00Z 2026-04-03T00:00:00Z; do
  run check "starquest-extras-$at" 0 check --catalog products --receipt "$work/in/starquest-extras.json" --at "$at"
  run explain "starquest-extras-$at" 0 explain --catalog products --receipt "$work/in/starquest-extras.json" --at "$at"
done
run explain environment-ignored 0 explain --catalog products "${both[@]}" --environment sandbox --at 2026-01-15T09:00:00Z
# The stories, told as receipts, at each of their events.
for story in products/stories/*.json; do
  name=$(basename "$story" .story.json)
  "$entitle" receipt --catalog products "$story" >"$work/in/story-$name.json"
  for at in $(python3 -c 'import json, sys; print(" ".join(sorted({e["at"] for e in json.load(open(sys.argv[1]))["story"]})))' "$story"); do
    run check "story-$name-$at" 0 check --catalog products --receipt "$work/in/story-$name.json" --at "$at"
    run explain "story-$name-$at" 0 explain --catalog products --receipt "$work/in/story-$name.json" --at "$at"
  done
done
# Failures: {"errors": [...]} on standard output.
run check bad-receipt 1 check --catalog products --receipt "$work/in/bad-receipt.json" --at 2026-01-15T09:00:00Z
run check bad-instant 2 check --catalog products --receipt products/receipts/diagrams-trial.json --at nope
run explain unknown-feature 2 explain --catalog products --receipt products/receipts/diagrams-trial.json --feature nope --at 2026-01-15T09:00:00Z
run explain bad-receipt 1 explain --catalog products --receipt "$work/in/bad-receipt.json" --at 2026-01-15T09:00:00Z

# -- every case of products/*.test.json: check and explain at its instant, and its consumption and
# retention requests (each case's receipts written out; its story told with `entitle receipt`) --

ENTITLE_BINARY="$entitle" python3 - "$work" products/*.test.json >"$work/cases.sh" <<'EOF'
import json, os, shlex, subprocess, sys

work, files = sys.argv[1], sys.argv[2:]
entitle = os.environ["ENTITLE_BINARY"]
lines = []
for path in files:
    test = json.load(open(path))
    base = os.path.dirname(path)
    stem = os.path.basename(path).removesuffix(".test.json")
    catalogs = test["catalog"] if isinstance(test["catalog"], list) else [test["catalog"]]
    app = test.get("app")
    for catalog in catalogs:
        catalog = os.path.join(base, catalog)
        if app is None and os.path.isfile(catalog):
            app = json.load(open(catalog))["app"]

    def written(receipts, story, name):
        files = []
        for index, receipt in enumerate(receipts):
            if isinstance(receipt, str):
                files.append(os.path.join(base, receipt))
            else:
                files.append(f"{work}/in/{name}-{index}.json")
                json.dump(receipt, open(files[-1], "w"))
        if story is not None:
            told = f"{work}/in/{name}-story.json"
            story_file = f"{work}/in/{name}-story.story.json"
            json.dump({"app": app, "story": story}, open(story_file, "w"))
            with open(told, "w") as out:
                subprocess.run([entitle, "receipt", "--catalog", "products", story_file], stdout=out, check=True)
            files.append(told)
        if not files:
            # No receipt at all: a customer who bought nothing.
            files.append(f"{work}/in/{name}-none.json")
            json.dump({"app": app}, open(files[-1], "w"))
        return files

    for number, case in enumerate(test["cases"]):
        name = f"case-{stem}-{number}"
        if "story" in case:
            receipts = written(case.get("receipts", []), case["story"], name)
        elif "receipts" in case:
            receipts = written(case["receipts"], None, name)
        else:
            receipts = written(test.get("receipts", []), test.get("story"), name)
        common = ["--catalog", "products"] + [arg for receipt in receipts for arg in ("--receipt", receipt)] + ["--at", case["at"]]
        if case.get("app", app):
            common += ["--app", case.get("app", app)]
        if case.get("storefront", test.get("storefront")):
            common += ["--storefront", case.get("storefront", test.get("storefront"))]
        for environment in test.get("environments", []):
            common += ["--environment", environment]
        lines.append(shlex.join(["run", "check", name, "0", "check"] + common))
        lines.append(shlex.join(["run", "explain", name, "0", "explain"] + common))
        for transaction in case["expect"].get("consumption", {}):
            if transaction == "$comment":
                continue
            lines.append(shlex.join(["run", "consumption", f"{name}-{transaction}", "0", "consumption"] + common
                                    + ["--transaction", transaction, "--consented"]))
            lines.append(shlex.join(["run", "consumption", f"{name}-explain-{transaction}", "0", "explain"] + common
                                    + ["--transaction", transaction]))
        for chain, expected in case["expect"].get("retention", {}).items():
            if chain == "$comment":
                continue
            request = {"originalTransactionId": chain, "productId": expected["productId"], "requestIdentifier": f"{name}-{chain}"}
            if expected.get("userLocale"):
                request["userLocale"] = expected["userLocale"]
            request_file = f"{work}/in/{name}-request-{chain}.json"
            json.dump(request, open(request_file, "w"))
            lines.append(shlex.join(["run", "retention", f"{name}-{chain}", "0", "retention"] + common + ["--request", request_file]))
            lines.append(shlex.join(["run", "retention", f"{name}-explain-{chain}", "0", "explain"] + common + ["--retention", request_file]))
print("\n".join(lines))
EOF
# shellcheck source=/dev/null
source "$work/cases.sh"

# -- consumption -------------------------------------------------------------------------------

notification=products/service-example/06-consumption-request.json
spent=(--catalog products --receipt "$work/in/stencils-spent.json")
trial=(--catalog products --receipt products/receipts/diagrams-trial.json)
run consumption notification 0 consumption "${spent[@]}" --notification "$notification" --consented --at 2026-03-23T00:00:00Z
run consumption notification-and-transaction 0 consumption "${spent[@]}" --notification "$notification" --transaction 2000000107 --consented --at 2026-03-23T00:00:00Z
run consumption no-consent 0 consumption "${spent[@]}" --transaction 1000 --at 2026-03-23T00:00:00Z
run consumption explain-transaction 0 explain "${spent[@]}" --receipt "$notification" --transaction 2000000107 --at 2026-03-23T00:00:00Z
for transaction in 1001 2002 3001 4001 4002; do
  run consumption "trial-$transaction" 0 consumption "${trial[@]}" --transaction "$transaction" --consented --at 2026-01-15T09:00:00Z
done
run consumption trial-later 0 consumption "${trial[@]}" --transaction 2002 --consented --at 2026-03-01T00:00:00Z
for reason in quality wrong-item server-outage other; do
  run consumption "refunded-$reason" 0 consumption --catalog products --receipt products/receipts/starquest-player.json \
    --transaction 9003 --consented --undelivered "$reason" --at 2026-03-20T00:00:00Z
done
run consumption rescinded 0 consumption --catalog products --receipt products/receipts/diagrams-rescinded.json --transaction 5001 --consented --at 2026-03-02T00:00:00Z
run consumption play-subscription 0 consumption --catalog products --receipt products/receipts/diagrams-play-hold.json \
  --transaction GPA.3312-8841-2207-55109 --pending-refund-token prt-1 --at 2026-01-15T09:00:00Z
run consumption play-explain 0 explain --catalog products --receipt products/receipts/diagrams-play-hold.json \
  --transaction GPA.3312-8841-2207-55109 --at 2026-01-15T09:00:00Z
for transaction in GPA.1 GPA.2; do
  run consumption "play-coins-$transaction" 0 consumption --catalog "$work/in/coins" --receipt "$work/in/coins-receipt.json" \
    --transaction "$transaction" --pending-refund-token prt-2 --at 2026-03-06T00:00:00Z
done
run consumption unknown-transaction 1 consumption "${trial[@]}" --transaction 99 --consented --at 2026-01-15T09:00:00Z
run consumption stripe-purchase 1 consumption --catalog products --receipt products/receipts/diagrams-web.json \
  --transaction "$(python3 -c 'import json; print(json.load(open("products/receipts/diagrams-web.json"))["transactions"][0]["transactionId"])')" \
  --consented --at 2026-06-01T00:00:00Z
run consumption explain-unknown-transaction 1 explain "${trial[@]}" --transaction 99 --at 2026-01-15T09:00:00Z

# -- retention ---------------------------------------------------------------------------------

history=(--catalog products --receipt products/receipts/diagrams-sync-history.json)
requests=(6000 777)
if [ -f "$work/in/request-fixture.json" ]; then requests+=(fixture); fi
for at in 2025-07-15T00:00:00Z 2025-08-01T00:00:00Z 2025-10-15T00:00:00Z; do
  for request in "${requests[@]}"; do
    run retention "history-$request-$at" 0 retention "${history[@]}" --request "$work/in/request-$request.json" --at "$at"
  done
  run retention "history-explain-$at" 0 explain "${history[@]}" --retention "$work/in/request-6000.json" --at "$at"
done
for at in 2026-02-09T11:59:59.999Z 2026-02-09T12:00:00Z 2026-02-17T00:00:00Z; do
  run retention "trial-$at" 0 retention "${trial[@]}" --request "$work/in/request-2001.json" --at "$at"
done
run retention rescinded 0 retention "${history[@]}" --receipt products/receipts/diagrams-rescinded.json \
  --request "$work/in/request-6000.json" --at 2026-03-02T00:00:00Z
run retention alternate-product 0 retention --catalog products --receipt "$work/in/vip-plus.json" --request "$work/in/request-vip.json" --at 2026-04-15T00:00:00Z
run retention alternate-product-explain 0 explain --catalog products --receipt "$work/in/vip-plus.json" --retention "$work/in/request-vip.json" --at 2026-04-15T00:00:00Z
run retention bad-request 1 retention "${trial[@]}" --request "$work/in/request-bad.json" --at 2026-01-15T09:00:00Z
run retention other-environment 1 retention "${history[@]}" --environment sandbox --request "$work/in/request-6000.json" --at 2025-08-01T00:00:00Z

# -- diff: products against modified copies, with and without the customers, and a proof -------

# changed: a grant removed and one added, a product removed, a currency's credits lowered, a
# product, a feature and a currency added, a retention rule dropped, a product's limit lowered.
cp -R products "$work/changed"
python3 - "$work/changed" <<'EOF'
import json, sys
root = sys.argv[1]
def edit(name, change):
    path = f"{root}/{name}"
    catalog = json.load(open(path))
    change(catalog)
    json.dump(catalog, open(path, "w"), indent=2)
def diagrams(catalog):
    for product in catalog["products"]:
        if product["id"] == "com.example.diagrams.sync.monthly":
            product["grants"] = []
            product.pop("retention", None)
        if product["id"] == "com.example.diagrams.daypass":
            product["grants"] = ["pro", "export.pdf"]
        if product["id"] == "com.example.diagrams.stencils.10":
            product["credits"] = {"stencils": 5}
    catalog["products"] = [p for p in catalog["products"] if p["id"] != "com.example.diagrams.pro.upgrade"]
def starquest(catalog):
    catalog["features"]["cloud.saves"] = "Cloud saves"
    catalog.setdefault("currencies", {})["coins"] = "Coins"
    catalog["products"].append({"id": "com.example.starquest.saves", "type": "non-consumable", "name": "Cloud saves", "grants": ["cloud.saves"]})
    catalog["products"] = [p for p in catalog["products"] if p["id"] != "com.example.starquest.noads"]
def quill(catalog):
    for product in catalog["products"]:
        if product["id"] == "com.example.quill.pro.monthly":
            product["limits"] = {"projects": 40}
edit("diagrams.json", diagrams)
edit("starquest.json", starquest)
edit("quill.json", quill)
EOF
# removed: an app's catalog gone.
cp -R products "$work/removed"
rm "$work/removed/diagrams6.json"
# broken: a catalog that does not compile.
cp -R products "$work/broken"
echo '{"app": "com.example.diagrams", "features": {}, "products": [' >"$work/broken/diagrams.json"
# A corpus with a customer whose receipt cannot be read.
mkdir -p "$work/corpus"
cp products/receipts/*.json "$work/corpus/"
cp "$work/in/bad-receipt.json" "$work/corpus/unreadable.json"

for variant in changed removed; do
  new="$work/$variant"
  run diff "$variant" 0 diff products "$new" --at 2026-01-15T09:00:00Z
  run diff "$variant-reverse" 0 diff "$new" products --at 2026-01-15T09:00:00Z
  run diff "$variant-customers" 0 diff products "$new" --customers products/receipts --at 2025-07-15T00:00:00Z --at 2026-01-15T09:00:00Z --at 2026-06-01T00:00:00Z
  run diff "$variant-customers-reverse" 0 diff "$new" products --customers products/receipts --at 2026-01-15T09:00:00Z
done
run diff same 0 diff products products --at 2026-01-15T09:00:00Z
run diff same-customers 0 diff products products --customers products/receipts --at 2026-01-15T09:00:00Z
run diff unreadable-customer 0 diff products "$work/changed" --customers "$work/corpus" --at 2026-01-15T09:00:00Z
run diff prove 0 diff products "$work/changed" --prove --depth 1 --at 2026-01-15T09:00:00Z
run diff prove-customers 0 diff products "$work/changed" --customers products/receipts --prove --depth 1 --at 2026-01-15T09:00:00Z
run diff broken 1 diff products "$work/broken" --at 2026-01-15T09:00:00Z

# -- explain of one feature, product, offer and balance: the first of each kind (the first product
# bought, when one is) in the check output of the same receipt at the same instant -------------

settle
while read -r receipt at option id; do
  run explain "$(basename "$receipt" .json)-$at-$option-$id" 0 explain --catalog products --receipt "$receipt" --at "$at" "--$option" "$id"
done < <(python3 - "$work" products/receipts/*.json <<'PY'
import json, os, sys
work, receipts = sys.argv[1], sys.argv[2:]
for receipt, at in [(path, "2026-01-15T09:00:00Z") for path in receipts] + [(f"{work}/in/starquest-extras.json", "2026-03-15T00:00:00Z")]:
    name = os.path.basename(receipt).removesuffix(".json")
    result = json.load(open(f"{work}/out/check/{name}-{at}.json"))
    products = result["products"]
    bought = [key for key, product in products.items() if product["state"] != "not-purchased"]
    for option, ids in (("feature", list(result["features"])), ("product", bought or list(products)),
                        ("offer", list(result["offers"])), ("balance", list(result["balances"])),
                        ("limit", list(result.get("limits", {})))):
        if ids:
            print(receipt, at, option, ids[0])
PY
)

# -- validate: the schemas against the metaschema, every output of a kind against its schema, and
# the receipts of --prove's witnesses against receipt.schema.json, each in the background --------

settle
failed=("$work/failed"/*)
if [ -e "${failed[0]}" ]; then
  cat "${failed[@]}" >&2
  echo "check-outputs: ${#failed[@]} of $runs commands did not exit as expected" >&2
  exit 1
fi
mkdir -p "$work/witnesses" "$work/valid"
python3 - "$work" <<'PY'
import glob, json, sys
work = sys.argv[1]
count = 0
for path in sorted(glob.glob(f"{work}/out/diff/prove*.json")):
    for item in json.load(open(path)).get("proof", {}).get("items", []):
        for witness in item["witnesses"]:
            for receipt in witness["receipts"]:
                json.dump(receipt, open(f"{work}/witnesses/receipt-{count}.json", "w"))
                count += 1
PY
schemas=()
for kind in "${kinds[@]}"; do schemas+=("schemas/$kind.output.schema.json"); done
# validate NAME CHECK-JSONSCHEMA-ARGUMENTS...: in the background, its output and exit in valid/.
validate() {
  local name=$1
  shift
  (
    code=0
    check-jsonschema "$@" >"$work/valid/$name.out" 2>&1 || code=$?
    echo "$code" >"$work/valid/$name.code"
  ) &
}
validate metaschema --check-metaschema "${schemas[@]}"
# OpenFeature answers against OFREP's own OpenAPI document, its flag value union read as `anyOf`
# (an integer is also a float there, and every value matches its code-default flag, so the
# document's own example fails a strict `oneOf`); each line of a --customers answer on its own.
ofrep_document="$fixtures/openfeature/ofrep-openapi.yaml"
if [ -f "$ofrep_document" ]; then
  mkdir -p "$work/ofrep"
  python3 - "$ofrep_document" "$work" <<'PY'
import glob, json, os, subprocess, sys
try:
    import yaml
except ImportError:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "pyyaml"], check=True)
    import yaml
document, work = sys.argv[1], sys.argv[2]
schemas = yaml.safe_load(open(document))["components"]["schemas"]
union = schemas["evaluationSuccess"]["allOf"][1]
union["anyOf"] = union.pop("oneOf")
json.dump({"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/components/schemas/bulkEvaluationSuccess",
           "components": {"schemas": schemas}}, open(f"{work}/ofrep.schema.json", "w"))
count = 0
for path in sorted(glob.glob(f"{work}/out/ofrep/*.json")):
    for number, line in enumerate(open(path)):
        value = json.loads(line)
        # A --customers line: the customer, then the bulk response's members.
        value.pop("customer", None)
        json.dump(value, open(f"{work}/ofrep/{os.path.basename(path)[:-5]}-{number}.json", "w"))
        count += 1
PY
  validate ofrep --schemafile "$work/ofrep.schema.json" "$work/ofrep"/*.json
fi
for kind in "${kinds[@]}"; do
  validate "$kind" --schemafile "schemas/$kind.output.schema.json" "$work/out/$kind"/*.json
done
witnesses=("$work/witnesses"/*.json)
if [ -e "${witnesses[0]}" ]; then
  validate witnesses --schemafile schemas/receipt.schema.json "${witnesses[@]}"
fi
settle
status=0
# passed NAME: whether its validation passed (else its output is printed).
passed() {
  if [ "$(cat "$work/valid/$1.code")" = 0 ]; then return 0; fi
  sed 's/^/  /' "$work/valid/$1.out" >&2
  status=1
  return 1
}
if passed metaschema; then
  echo "metaschema: the ${#schemas[@]} output schemas are valid draft 2020-12 schemas"
else
  echo "metaschema: an output schema is not a valid draft 2020-12 schema" >&2
fi
for kind in "${kinds[@]}"; do
  outputs=("$work/out/$kind"/*.json)
  if passed "$kind"; then
    echo "$kind: ${#outputs[@]} outputs match schemas/$kind.output.schema.json"
  else
    echo "$kind: outputs do not match schemas/$kind.output.schema.json" >&2
  fi
done
if [ -f "$ofrep_document" ]; then
  answers=("$work/ofrep"/*.json)
  if passed ofrep; then
    echo "ofrep: ${#answers[@]} OpenFeature answers match the OFREP document's bulk response"
  else
    echo "ofrep: OpenFeature answers do not match the OFREP document" >&2
  fi
else
  echo "check-outputs: $ofrep_document is not there: OpenFeature answers not checked" >&2
  if [ "${CI:-}" = true ]; then status=1; fi
fi
if [ ! -e "${witnesses[0]}" ]; then
  echo "check-outputs: diff --prove showed no witness" >&2
  status=1
elif passed witnesses; then
  echo "diff --prove witnesses: ${#witnesses[@]} receipts match schemas/receipt.schema.json"
else
  echo "diff --prove witnesses: receipts do not match schemas/receipt.schema.json" >&2
fi
echo "check-outputs: $runs commands, $((SECONDS - started)) s"
exit "$status"
