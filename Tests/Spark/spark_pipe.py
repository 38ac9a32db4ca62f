"""Batch `entitle check` on Apache Spark, in local mode, against the single-process answer.

    python3 Tests/Spark/spark_pipe.py [ENTITLE] [CUSTOMERS]

Generates a corpus of Diagrams customers (JSON Lines, a fixed seed), runs it through Spark the way
the Command Line article's recipe does (each partition piped through one `entitle check
--customers - --jobs 1`), and through one `entitle check --customers FILE`, and fails unless both
give the same lines (in any order). Spark's own reading and writing of JSON Lines is checked too:
the answers read back as a DataFrame hold one row per customer.

Needs PySpark (`pip install pyspark`) and a Java runtime (`default-jre-headless`). Without them
it says it is skipped and exits 0, unless CI is set (CI installs them), where it fails.
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ENTITLE = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "entitle")
CUSTOMERS = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
AT = "2026-02-01T00:00:00Z"
APP = "com.example.diagrams"


def skip(reason):
    if os.environ.get("CI"):
        print(f"spark test: cannot run in CI: {reason}", file=sys.stderr)
        sys.exit(1)
    print(f"spark test: skipped: {reason} (CI installs it)")
    sys.exit(0)


def customer(rng, number):
    """One generated customer: a few purchases of Diagrams' products in January 2026."""
    transactions = []
    for index in range(rng.randint(0, 4)):
        day = rng.randint(1, 31)
        product = rng.choice(["daypass", "stencils.10", "pro", "sync.monthly"])
        transaction = {
            "productId": f"{APP}.{product}",
            "transactionId": f"{number}-{index}",
            "purchaseDate": f"2026-01-{day:02d}T{rng.randint(0, 23):02d}:00:00Z",
        }
        if product == "sync.monthly":
            transaction["expiresDate"] = f"2026-02-{day:02d}T00:00:00Z" if day <= 28 else "2026-02-28T00:00:00Z"
        if product in ("daypass", "stencils.10"):
            transaction["quantity"] = rng.randint(1, 3)
        if rng.random() < 0.1:
            transaction["cancellationDate"] = "2026-01-31T12:00:00Z"
        transactions.append(transaction)
    identifier = number if number % 7 == 0 else f"c-{number}"  # ids as numbers keep their type
    return json.dumps({"customer": identifier, "receipts": [{"app": APP, "transactions": transactions}]})


def main():
    if not os.path.exists(ENTITLE):
        skip(f"no entitle executable at {ENTITLE} (swift build first)")
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        skip("PySpark is not installed")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        skip("no Java runtime")

    work = tempfile.mkdtemp(prefix="entitle-spark-")
    corpus = os.path.join(work, "customers.jsonl")
    rng = random.Random(31)
    with open(corpus, "w") as handle:
        for number in range(CUSTOMERS):
            handle.write(customer(rng, number) + "\n")
    products = os.path.join(ROOT, "products")
    command = [ENTITLE, "check", "--catalog", products, "--customers", "-", "--jobs", "1", "--at", AT]

    # One process over the whole corpus.
    single = subprocess.run(
        [ENTITLE, "check", "--catalog", products, "--customers", corpus, "--at", AT], capture_output=True, text=True
    )
    expected = sorted(single.stdout.splitlines())

    # Spark: each partition through one entitle, as the recipe says.
    spark = (
        SparkSession.builder.master("local[2]").appName("entitle-check")
        .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4").getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        lines = spark.sparkContext.textFile(corpus, minPartitions=6)
        answers = lines.pipe(" ".join(command))
        output = os.path.join(work, "answers")
        answers.saveAsTextFile(output)
        got = sorted(spark.sparkContext.textFile(output).collect())
        frame = spark.read.json(output)
        rows = frame.count()
        partitions = lines.getNumPartitions()
    finally:
        spark.stop()

    problems = []
    if len(expected) != CUSTOMERS:
        problems.append(f"the single run printed {len(expected)} lines for {CUSTOMERS} customers")
    if got != expected:
        missing = len(set(expected) - set(got))
        extra = len(set(got) - set(expected))
        problems.append(f"Spark's lines differ from the single run's: {missing} missing, {extra} not expected")
    if rows != CUSTOMERS:
        problems.append(f"the answers read back as a DataFrame hold {rows} rows, not {CUSTOMERS}")
    shutil.rmtree(work, ignore_errors=True)
    if problems:
        for problem in problems:
            print(f"spark test: {problem}", file=sys.stderr)
        sys.exit(1)
    print(f"spark test: {CUSTOMERS} customers in {partitions} partitions through Spark give the single run's {len(got)} lines")


if __name__ == "__main__":
    main()
