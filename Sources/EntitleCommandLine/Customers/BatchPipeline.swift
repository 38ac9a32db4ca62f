import Foundation

/// Runs a batch as a pipeline on every core: one thread reads chunks, `jobs` threads transform
/// them, and the calling thread consumes the results in the order the chunks were read, while
/// the next ones are being read and transformed.
///
/// At most `inFlight` chunks exist at once (read and not yet consumed): the reader waits for the
/// consumer when it is that far ahead, so memory holds a bounded number of chunks whatever the
/// size of the input. The results reach the consumer in reading order whatever `jobs` is and
/// whichever thread finishes first, so the output does not depend on `jobs`.
final class BatchPipeline<Chunk: Sendable, Result: Sendable>: @unchecked Sendable {
    /// The threads that transform chunks.
    let jobs: Int
    /// The most chunks read and not yet consumed.
    let inFlight: Int

    // Everything below is guarded by `condition`'s lock.
    private let condition = NSCondition()
    /// Chunks read and not yet taken by a worker, from `pendingStart` (a taken one is `nil`, so it
    /// is not kept alive by the queue).
    private var pending: [(sequence: Int, chunk: Chunk)?] = []
    private var pendingStart = 0
    private var results: [Int: Result] = [:]
    private var read = 0
    private var consumed = 0
    private var readingDone = false
    private var workersLeft = 0

    /// A pipeline of `jobs` transforming threads (at least 1) with `inFlight` chunks at most
    /// (default: two per job and two more, so no thread waits for want of a chunk).
    init(jobs: Int, inFlight: Int? = nil) {
        self.jobs = max(1, jobs)
        self.inFlight = max(2, inFlight ?? 2 * max(1, jobs) + 2)
    }

    /// Runs the batch and returns when every chunk was consumed.
    ///
    /// - Parameters:
    ///   - readChunks: runs on a thread of its own and hands each chunk, in order, to the function
    ///     it is given, which waits while `inFlight` chunks are outstanding.
    ///   - transform: runs on the `jobs` threads, each chunk once.
    ///   - consume: runs on the calling thread, each result in reading order.
    func run(
        readChunks: @escaping @Sendable (_ emit: (Chunk) -> Void) -> Void,
        transform: @escaping @Sendable (Chunk) -> Result,
        consume: (Result) -> Void
    ) {
        condition.lock()
        workersLeft = jobs
        condition.unlock()
        let reader = Thread { [self] in
            readChunks { chunk in self.add(chunk) }
            condition.lock()
            readingDone = true
            condition.broadcast()
            condition.unlock()
        }
        reader.stackSize = 1 << 23
        reader.start()
        for _ in 0..<jobs {
            let worker = Thread { [self] in work(transform) }
            worker.stackSize = 1 << 23
            worker.start()
        }
        while let result = nextResult() { consume(result) }
        // Every chunk is consumed; wait for the workers to leave, so none outlives the run.
        condition.lock()
        while workersLeft > 0 { condition.wait() }
        condition.unlock()
    }

    /// The reader's side: waits while `inFlight` chunks are outstanding, then queues the chunk.
    private func add(_ chunk: Chunk) {
        condition.lock()
        while read - consumed >= inFlight { condition.wait() }
        pending.append((read, chunk))
        read += 1
        condition.broadcast()
        condition.unlock()
    }

    /// A worker: takes chunks until the reader is done and none is left.
    private func work(_ transform: (Chunk) -> Result) {
        while true {
            condition.lock()
            while pendingStart == pending.count && !readingDone { condition.wait() }
            guard pendingStart < pending.count else {
                workersLeft -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let (sequence, chunk) = pending[pendingStart]!
            pending[pendingStart] = nil
            pendingStart += 1
            // The queue's consumed front is dropped now and then, so it never grows with the input.
            if pendingStart >= 64 && pendingStart * 2 >= pending.count {
                pending.removeFirst(pendingStart)
                pendingStart = 0
            }
            condition.unlock()
            let result = transform(chunk)
            condition.lock()
            results[sequence] = result
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The consumer's side: the next result in reading order, or `nil` when all were consumed.
    private func nextResult() -> Result? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result = results.removeValue(forKey: consumed) {
                consumed += 1
                condition.broadcast()
                return result
            }
            if readingDone && consumed == read { return nil }
            condition.wait()
        }
    }
}
