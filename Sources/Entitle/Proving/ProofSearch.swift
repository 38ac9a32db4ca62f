import Dispatch
import Foundation

/// The search of a proof: every customer of a ``ReceiptSpace`` up to a depth, each evaluated by
/// the evaluator itself under each catalog at every instant at which an answer changes, handed to
/// an observer (a comparison of two catalogs, or a review of one).
///
/// - Instants: from before the customer's first fact, each catalog's ``Entitlements/reevaluateAt``
///   in turn, until there is none. `reevaluateAt` is the first instant at which the answer may
///   differ (early, never late), so each catalog's answer holds from one of its instants to the
///   next, and comparing the two at every instant of either compares them at every instant.
///   That covers every purchase, every end of coverage under either catalog and every threshold
///   an offer reaches, without guessing them; a millisecond either side of a change is the
///   instant before it, searched already.
/// - Customers: the empty customer; every atom alone; then every combination of 2 to `depth`
///   elements that ``ReceiptSpace/combinations(depth:)`` finds within what one part of the answer
///   reads, in every way each element can be had, placed at every placement that orders the new
///   element's changes differently among the others' (``ReceiptSpace/placements(after:own:from:)``),
///   continuing a chain where one can be continued. Each with every variant of the receipt facts
///   when a part it touches reads them.
/// - Absolute instants: a customer touching a part that reads a catalog's absolute instant (an
///   offer's window; a grandfather rule's date, when its receipt has an original purchase date) is
///   evaluated again with its first purchase placed so that each of its changes falls at each such
///   instant, and a millisecond after.
struct ProofSearch<Observer: ProofObserver>: Sendable {
    let space: ReceiptSpace
    /// How evaluation runs on each side (the side's portfolio's catalogs, the environments).
    let options: [Evaluator.Options]
    let depth: Int
    let threads: Int
    /// Whether combinations lie within what one part reads (``ProofOptions/relatedOnly``).
    var relatedOnly = true
    /// The most customers the combinations may take (``ProofOptions/maxCustomers``).
    var maxCustomers = Int.max
    /// When to stop taking combinations (``ProofOptions/timeLimit``); every element alone is
    /// always searched.
    var deadline: ContinuousClock.Instant?
    /// Told how far the combinations are, as units finish.
    var progress: (@Sendable (_ customers: Int, _ fraction: Double) -> Void)?

    /// The most instants followed per catalog and customer; a walk that reaches it is counted
    /// as cut (``ProofStatistics/cutWalks``).
    static var maxInstants: Int { 256 }

    /// Searches the space: returns every worker's observer merged, and what was searched.
    func run(_ makeObserver: @Sendable () -> Observer) -> (observer: Observer, statistics: ProofStatistics) {
        let atomCount = space.atoms.count
        // The empty customer and every atom alone; their instants place the atoms in pairs.
        let singles = parallel(units: 1 + atomCount, makeObserver, deadline: nil, progress: nil) { unit, worker in
            if unit == 0 {
                for facts in space.facts.indices {
                    var customer = ReceiptSpace.Customer()
                    customer.facts = facts
                    _ = evaluate(customer, thresholds: !space.thresholds.isEmpty, order: SearchOrder(unit: 0, local: facts), worker: &worker)
                }
                return []
            }
            let atom = unit - 1
            // An element no compared part reads (each part reading it is the same in both catalogs).
            guard !space.itemsOfElement[space.atoms[atom].element].isEmpty else { return [] }
            let needs = space.needs(ofElement: space.atoms[atom].element)
            var boundaries: [Int64] = []
            for facts in needs.facts ? Array(space.facts.indices) : [0] {
                let customer = ReceiptSpace.Customer(placed: [ReceiptSpace.Placed(atom: atom, offset: 0)], facts: facts)
                let changes = evaluate(customer, thresholds: needs.thresholds, order: SearchOrder(unit: unit, local: facts), worker: &worker)
                if facts == 0 { boundaries = changes }
            }
            return boundaries
        }
        var found = [[Int64]](repeating: [0], count: atomCount)
        for (unit, result) in singles.results.enumerated() where unit > 0 { found[unit - 1] = Self.sorted([0] + result) }
        let boundaries = found
        // The combinations, up to the budget of customers, in the order searched.
        let (every, allListed) = space.combinations(depth: depth, relatedOnly: relatedOnly)
        // A combination none of whose customers is compared on anything (every part reading it
        // answers them alike under both catalogs, `ReceiptSpace+Equivalence`) is not searched.
        var listed: [(elements: [Int], needs: ReceiptSpace.Needs, atoms: [[Int]])] = []
        // The atoms searched of each element, by the parts its customers are compared on.
        var tables: [[Int]: [[Int]]] = [:]
        for combination in every {
            let touched = space.touchedItems(elements: combination.elements, hasFacts: false, readingAll: relatedOnly)
            guard !touched.isEmpty else { continue }
            if tables[touched] == nil { tables[touched] = space.searchedAtoms(for: touched) }
            listed.append((combination.elements, combination.needs, tables[touched]!))
        }
        var budget = maxCustomers
        var within = 0
        for combination in listed {
            let estimate = space.estimatedCustomers(combination.elements, needs: combination.needs, atoms: combination.atoms)
            guard estimate <= budget else { break }
            budget -= estimate
            within += 1
        }
        let combinations = Array(listed.prefix(within))
        let unsearched = listed.count - combinations.count + (allListed ? 0 : 1)
        // A combination is searched as one unit per way of its latest element, so that one
        // combination with many customers is shared among the threads (a deeper one's units each
        // find the customers of the others again, a small part of their work).
        var units: [(combination: Int, last: Int?, atom: Int?)] = []
        for (index, combination) in combinations.enumerated() {
            for last in Self.distinct(combination.elements) {
                for atom in combination.atoms[last] { units.append((index, last, atom)) }
            }
        }
        let work = units
        let customersAlone = singles.statistics.customers
        let report = progress.map { progress in
            { @Sendable (customers: Int, fraction: Double) in progress(customersAlone + customers, fraction) }
        }
        let combined = parallel(units: work.count, makeObserver, deadline: deadline, progress: report) { unit, worker in
            let (index, last, atom) = work[unit]
            var local = 0
            searchCombination(
                combinations[index].elements, needs: combinations[index].needs, atoms: combinations[index].atoms, boundaries: boundaries,
                last: last, atom: atom, unit: 1 + atomCount + unit, local: &local, worker: &worker)
            return []
        }
        var observer = singles.observer
        observer.merge(combined.observer)
        var statistics = singles.statistics
        statistics.add(combined.statistics)
        statistics.combinations = combinations.count
        statistics.unsearchedCombinations = unsearched
        // Stopped at the time limit: the combinations from the first unit not taken on (one begun
        // is unfinished too) were not searched; every customer of fewer elements than the first of
        // them was.
        if combined.handedOut < work.count {
            let first = work[combined.handedOut].combination
            statistics.combinations = first
            statistics.unsearchedCombinations += combinations.count - first
            statistics.stoppedAtDepth = combinations[first].elements.count - 1
        }
        return (observer, statistics)
    }

    /// A worker's state: its observer and its counts.
    struct Worker {
        var observer: Observer
        var statistics = ProofStatistics()
    }

    /// Runs `body` for units `0..<count` on the threads, each worker taking the next unit as it
    /// finishes one; returns each unit's result in order, the workers' observers merged and their
    /// counts added.
    private func parallel(
        units count: Int, _ makeObserver: @Sendable () -> Observer, deadline: ContinuousClock.Instant?,
        progress: (@Sendable (Int, Double) -> Void)?, _ body: @Sendable (Int, inout Worker) -> [Int64]
    ) -> (results: [[Int64]], observer: Observer, statistics: ProofStatistics, handedOut: Int) {
        let workers = max(1, min(threads, count))
        let queue = UnitQueue(count: count, deadline: deadline)
        let slots = WorkerSlots<Worker>(count: workers)
        DispatchQueue.concurrentPerform(iterations: workers) { index in
            var worker = Worker(observer: makeObserver())
            while let unit = queue.next() {
                let before = worker.statistics.customers
                queue.store(body(unit, &worker), at: unit)
                let (customers, done) = queue.finished(customers: worker.statistics.customers - before)
                progress?(customers, Double(done) / Double(max(1, count)))
            }
            slots.set(index, worker)
        }
        var all = slots.values
        var merged = all.removeFirst()
        for worker in all {
            merged.observer.merge(worker.observer)
            merged.statistics.add(worker.statistics)
        }
        return (queue.results, merged.observer, merged.statistics, queue.handedOut)
    }

    /// Every customer of one combination of elements: for each element in turn as the latest,
    /// every customer of the others, then each way of that element at each placement after them.
    /// Given `only` and `atom`, only the customers whose latest element is `only`, had in that way.
    private func searchCombination(
        _ elements: [Int], needs: ReceiptSpace.Needs, atoms: [[Int]], boundaries: [[Int64]], last only: Int?, atom onlyAtom: Int?,
        unit: Int, local: inout Int, worker: inout Worker
    ) {
        for last in only.map({ [$0] }) ?? Self.distinct(elements) {
            var rest = elements
            rest.remove(at: rest.firstIndex(of: last)!)
            prefixes(rest, atoms: atoms, boundaries: boundaries, worker: &worker) { prefix, changes, worker in
                for atom in onlyAtom.map({ [$0] }) ?? atoms[last] {
                    for placed in placements(of: atom, after: prefix, changes: changes, boundaries: boundaries) {
                        var customer = prefix
                        customer.placed.append(placed)
                        for facts in needs.facts ? Array(space.facts.indices) : [0] {
                            customer.facts = facts
                            local += 1
                            _ = evaluate(customer, thresholds: needs.thresholds, order: SearchOrder(unit: unit, local: local), worker: &worker)
                        }
                    }
                }
            }
        }
    }

    /// Placements of `atom` continuing the placed element `previous` of `prefix`: a renewal or
    /// crossgrade at its expiry, or a restore of a trial at each of `placements`.
    private func continuations(
        of prefix: ReceiptSpace.Customer, previous: Int, atom: Int, placements: [ReceiptSpace.Placed]
    ) -> [ReceiptSpace.Placed] {
        guard case .purchase(let purchase) = space.atoms[atom].way, purchase.expiry != nil else {
            return placements.map { ReceiptSpace.Placed(atom: atom, offset: $0.offset, continues: previous) }
        }
        guard let receipts = space.receipts(of: prefix, base: ReceiptSpace.base),
            // The chain's receipt: the app's App Store receipt, or its receipt of another store.
            let expiry = receipts.lazy.flatMap(\.transactions).first(where: { $0.transactionId == String(previous + 1) })?.expiresDate
        else { return [] }
        let offset = expiry.millisecondsSince1970 - ReceiptSpace.base
        return offset >= prefix.lastOffset ? [ReceiptSpace.Placed(atom: atom, offset: offset, continues: previous)] : []
    }

    /// Every customer of the elements `elements` (in any order of purchase), with the instants,
    /// relative to its first purchase, where an answer to it changes, and its elements' offsets.
    private func prefixes(
        _ elements: [Int], atoms: [[Int]], boundaries: [[Int64]], worker: inout Worker,
        _ body: (ReceiptSpace.Customer, [Int64], inout Worker) -> Void
    ) {
        if elements.count == 1 {
            for atom in atoms[elements[0]] {
                body(ReceiptSpace.Customer(placed: [ReceiptSpace.Placed(atom: atom, offset: 0)]), boundaries[atom], &worker)
            }
            return
        }
        // Deeper prefixes: every customer of the elements, whose own changes are found by
        // evaluating it (counted, not observed: it is observed where it is searched itself).
        var seen: Set<ReceiptSpace.Customer> = []
        for last in Self.distinct(elements) {
            var rest = elements
            rest.remove(at: rest.firstIndex(of: last)!)
            prefixes(rest, atoms: atoms, boundaries: boundaries, worker: &worker) { prefix, prefixChanges, worker in
                for atom in atoms[last] {
                    for placed in placements(of: atom, after: prefix, changes: prefixChanges, boundaries: boundaries) {
                        var customer = prefix
                        customer.placed.append(placed)
                        guard seen.insert(customer).inserted else { continue }
                        let own = changes(of: customer, worker: &worker)
                        body(customer, Self.sorted(own + customer.placed.map(\.offset)), &worker)
                    }
                }
            }
        }
    }

    /// The instants, relative to the first purchase, at which an answer to `customer` changes
    /// under either catalog (its base ``ReceiptSpace/base``, no receipt facts).
    private func changes(of customer: ReceiptSpace.Customer, worker: inout Worker) -> [Int64] {
        guard let receipts = space.receipts(of: customer, base: ReceiptSpace.base) else { return [] }
        let parsed = receipts.map(ParsedReceipt.init)
        var changes: [Int64] = [0]
        for side in options.indices {
            let points = walk(side, parsed, base: ReceiptSpace.base, worker: &worker)
            for index in points.indices.dropFirst() { changes.append(points[index].at - ReceiptSpace.base) }
        }
        return Self.sorted(changes)
    }

    /// Evaluates one customer at its base (and, when it touches a part reading an absolute
    /// instant, at the bases that place its changes at those instants), hands each evaluation to
    /// the observer, and returns the instants, relative to its first purchase, where an answer to
    /// it changes at the first base.
    private func evaluate(
        _ customer: ReceiptSpace.Customer, thresholds shifts: Bool, order: SearchOrder, worker: inout Worker
    ) -> [Int64] {
        let touched = space.touchedItems(elements: space.elements(of: customer), hasFacts: customer.facts != 0, readingAll: relatedOnly)
        // At a shifted base, only what reads an absolute instant can answer otherwise.
        let purchaseDate = space.facts[customer.facts].purchase != nil
        let shiftedTouched = touched.filter { !space.items[$0].thresholds(purchaseDate: purchaseDate).isEmpty }
        let thresholds = Array(Set(shiftedTouched.flatMap { space.items[$0].thresholds(purchaseDate: purchaseDate) })).sorted()
        guard !touched.isEmpty else { return [] }
        var bases = [ReceiptSpace.base]
        var changes: [Int64] = []
        var position = 0
        while position < bases.count {
            let base = bases[position]
            defer { position += 1 }
            guard let receipts = space.receipts(of: customer, base: base) else { continue }
            let parsed = receipts.map(ParsedReceipt.init)
            let points = options.indices.map { walk($0, parsed, base: base, worker: &worker) }
            worker.statistics.customers += 1
            let searched = SearchCase(
                customer: customer, base: base, receipts: receipts, points: points,
                touched: position == 0 ? touched : shiftedTouched,
                order: SearchOrder(unit: order.unit, local: order.local, base: position))
            worker.observer.observe(searched, in: space)
            guard position == 0 else { continue }
            var relative: [Int64] = [0]
            for side in points { for index in side.indices.dropFirst() { relative.append(side[index].at - base) } }
            changes = Self.sorted(relative)
            if shifts, !thresholds.isEmpty { bases += shiftedBases(changes, thresholds: thresholds) }
        }
        return changes
    }

    /// The bases at which each of a customer's changes (relative to its first purchase) falls at
    /// each absolute instant the parts it touches read, and a millisecond after; and one before
    /// them all.
    private func shiftedBases(_ changes: [Int64], thresholds: [Int64]) -> [Int64] {
        var bases = Set<Int64>()
        for threshold in thresholds {
            for change in changes {
                let (base, overflow) = threshold.subtractingReportingOverflow(change)
                guard !overflow else { continue }
                bases.insert(base)
                bases.insert(base &+ 1)
            }
        }
        if let first = bases.min(), first <= ReceiptSpace.base { bases.insert(first - 86_400_000) }
        bases.remove(ReceiptSpace.base)
        let range = Instant.earliest.millisecondsSince1970...Instant.latest.millisecondsSince1970
        return bases.filter { range.contains($0) }.sorted()
    }

    /// The evaluations of one side at each instant where its answer changes: from a millisecond
    /// before everything the receipts and the catalogs date, each `reevaluateAt` in turn.
    private func walk(_ side: Int, _ receipts: [ParsedReceipt], base: Int64, worker: inout Worker) -> [SearchPoint] {
        guard let catalog = space.catalogs[side] else { return [] }
        var recorder = Evaluator.NoRecord()
        let inputs = Evaluator.inputs(catalog, receipts: receipts, options: options[side], recorder: &recorder)
        var start = base
        for receipt in receipts {
            if receipt.originalPurchase != TransactionRecord.absentDate { start = min(start, receipt.originalPurchase) }
        }
        if let first = space.thresholds.first { start = min(start, first) }
        start = max(start - 1, Instant.earliest.millisecondsSince1970)
        var points: [SearchPoint] = []
        var at = start
        while true {
            let result = Evaluator.evaluate(catalog, inputs, at: Instant(millisecondsSince1970: at), options: options[side], recorder: &recorder)
            worker.statistics.evaluations += 1
            points.append(SearchPoint(at: at, result: result))
            guard let next = result.reevaluateAt?.millisecondsSince1970, next > at else { break }
            if points.count == Self.maxInstants {
                worker.statistics.cutWalks += 1
                break
            }
            at = next
        }
        return points
    }

    /// Each placement of `atom` after a customer whose answers change at `changes`: at each
    /// ordering among those changes, and continuing the customer's latest chain where `atom` can.
    private func placements(of atom: Int, after prefix: ReceiptSpace.Customer, changes: [Int64], boundaries: [[Int64]]) -> [ReceiptSpace.Placed] {
        var placements = ReceiptSpace.placements(after: changes, own: boundaries[atom], from: prefix.lastOffset).map {
            ReceiptSpace.Placed(atom: atom, offset: $0)
        }
        if let previous = prefix.placed.indices.max(by: { prefix.placed[$0].offset < prefix.placed[$1].offset }),
            space.mayContinue(prefix.placed[previous].atom, with: atom)
        {
            placements += continuations(of: prefix, previous: previous, atom: atom, placements: placements)
        }
        return placements
    }

    static func sorted(_ values: [Int64]) -> [Int64] { Array(Set(values)).sorted() }

    /// The elements of a combination, each once, in order.
    static func distinct(_ elements: [Int]) -> [Int] {
        var result: [Int] = []
        for element in elements where !result.contains(element) { result.append(element) }
        return result
    }
}

/// Hands out units to workers, in order, until they run out or the deadline passes; keeps each
/// unit's result and counts what is done.
private final class UnitQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var nextUnit = 0
    private let count: Int
    private let deadline: ContinuousClock.Instant?
    private var stored: [[Int64]]
    private var done = 0
    private var customers = 0

    init(count: Int, deadline: ContinuousClock.Instant?) {
        self.count = count
        self.deadline = deadline
        stored = [[Int64]](repeating: [], count: count)
    }

    func next() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard nextUnit < count else { return nil }
        if let deadline, ContinuousClock.now >= deadline { return nil }
        nextUnit += 1
        return nextUnit - 1
    }

    /// How many units were handed out.
    var handedOut: Int {
        lock.lock()
        defer { lock.unlock() }
        return nextUnit
    }

    /// Counts a finished unit and its customers; the totals so far.
    func finished(customers added: Int) -> (customers: Int, done: Int) {
        lock.lock()
        defer { lock.unlock() }
        done += 1
        customers += added
        return (customers, done)
    }

    func store(_ result: [Int64], at unit: Int) {
        guard !result.isEmpty else { return }
        lock.lock()
        stored[unit] = result
        lock.unlock()
    }

    var results: [[Int64]] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// One slot per worker, each written by its worker once, read after all have finished.
private final class WorkerSlots<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Value?]

    init(count: Int) { slots = [Value?](repeating: nil, count: count) }

    func set(_ index: Int, _ value: Value) {
        lock.lock()
        slots[index] = value
        lock.unlock()
    }

    var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return slots.compactMap { $0 }
    }
}
