import Foundation

/// Enough of PNG to read back what a browser's screenshot shows: 8-bit RGB or RGBA, not
/// interlaced, its zlib stream inflated (stored, fixed and dynamic Huffman blocks, RFC 1951) and
/// every row filter undone. Written for the browser test, which asserts on the pixels; no
/// package dependency, and Foundation on Linux has no image decoding.
struct PNGImage {
    let width: Int
    let height: Int
    /// Red, green, blue and alpha of each pixel, row by row.
    let pixels: [UInt8]

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count > 8, bytes.prefix(8).elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw Failure(description: "not a PNG: the signature is missing")
        }
        func integer(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        var offset = 8
        var header: (width: Int, height: Int, depth: UInt8, color: UInt8, interlace: UInt8)?
        var compressed: [UInt8] = []
        while offset + 12 <= bytes.count {
            let length = integer(offset)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard length >= 0, offset + 12 + length <= bytes.count else { throw Failure(description: "chunk \(type) runs past the end") }
            let body = bytes[offset + 8..<offset + 8 + length]
            switch type {
            case "IHDR":
                guard length == 13 else { throw Failure(description: "IHDR of \(length) bytes") }
                let start = body.startIndex
                header = (integer(start), integer(start + 4), bytes[start + 8], bytes[start + 9], bytes[start + 12])
            case "IDAT":
                compressed += body
            default:
                break
            }
            offset += 12 + length
            if type == "IEND" { break }
        }
        guard let header else { throw Failure(description: "no IHDR chunk") }
        guard header.depth == 8, header.color == 2 || header.color == 6, header.interlace == 0 else {
            throw Failure(description: "unsupported PNG: bit depth \(header.depth), color type \(header.color), interlace \(header.interlace)")
        }
        guard compressed.count > 6 else { throw Failure(description: "no image data") }
        var inflater = Inflater(compressed, from: 2)
        let raw = try inflater.inflate()
        let channels = header.color == 6 ? 4 : 3
        let stride = header.width * channels
        guard raw.count >= header.height * (stride + 1) else {
            throw Failure(description: "\(raw.count) bytes of image data for \(header.width)x\(header.height)")
        }
        // Undo each row's filter, against the row above (zero above the first).
        var previous = [UInt8](repeating: 0, count: stride)
        var rgba = [UInt8]()
        rgba.reserveCapacity(header.width * header.height * 4)
        for row in 0..<header.height {
            let start = row * (stride + 1)
            let filter = raw[start]
            var line = Array(raw[start + 1...start + stride])
            for index in 0..<stride {
                let left = index >= channels ? Int(line[index - channels]) : 0
                let up = Int(previous[index])
                let upLeft = index >= channels ? Int(previous[index - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = left
                case 2: predictor = up
                case 3: predictor = (left + up) / 2
                case 4:
                    let estimate: Int = left + up - upLeft
                    let a: Int = Swift.abs(estimate - left)
                    let b: Int = Swift.abs(estimate - up)
                    let c: Int = Swift.abs(estimate - upLeft)
                    predictor = a <= b && a <= c ? left : b <= c ? up : upLeft
                default: throw Failure(description: "row \(row) has filter \(filter)")
                }
                line[index] = UInt8(truncatingIfNeeded: Int(line[index]) + predictor)
            }
            for pixel in 0..<header.width {
                rgba += line[pixel * channels..<pixel * channels + 3]
                rgba.append(channels == 4 ? line[pixel * channels + 3] : 255)
            }
            previous = line
        }
        width = header.width
        height = header.height
        pixels = rgba
    }

    /// The pixels within `tolerance` of `color` (`#rrggbb`) in each channel, ignoring alpha.
    func count(near color: String, tolerance: Int = 24) -> Int {
        let hex = Array(color.dropFirst())
        let target = stride(from: 0, to: 6, by: 2).map { Int(String(hex[$0...$0 + 1]), radix: 16)! }
        var count = 0
        for index in Swift.stride(from: 0, to: pixels.count, by: 4)
        where abs(Int(pixels[index]) - target[0]) <= tolerance && abs(Int(pixels[index + 1]) - target[1]) <= tolerance
            && abs(Int(pixels[index + 2]) - target[2]) <= tolerance
        {
            count += 1
        }
        return count
    }
}

/// A DEFLATE decoder (RFC 1951) over a byte array, bits read least significant first.
private struct Inflater {
    private let input: [UInt8]
    private var position: Int
    private var bitBuffer = 0
    private var bitCount = 0
    private var output: [UInt8] = []

    init(_ input: [UInt8], from position: Int) {
        self.input = input
        self.position = position
    }

    /// A canonical Huffman code: how many codes of each length, and the symbols in code order.
    private struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []

        init(lengths: [Int]) throws {
            for length in lengths { counts[length] += 1 }
            counts[0] = 0
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<16 { offsets[length] = offsets[length - 1] + counts[length - 1] }
            symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, length) in lengths.enumerated() where length > 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }
    }

    private static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
    ]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
        2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
    ]
    private static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    private mutating func bits(_ count: Int) throws -> Int {
        while bitCount < count {
            guard position < input.count else { throw PNGImage.Failure(description: "the compressed data ends early") }
            bitBuffer |= Int(input[position]) << bitCount
            position += 1
            bitCount += 8
        }
        let value = bitBuffer & ((1 << count) - 1)
        bitBuffer >>= count
        bitCount -= count
        return value
    }

    /// One symbol: codes are read a bit at a time, most significant bit first, and compared with
    /// the first code of each length.
    private mutating func decode(_ code: Huffman) throws -> Int {
        var value = 0
        var first = 0
        var index = 0
        for length in 1..<16 {
            value |= try bits(1)
            let count = code.counts[length]
            if value - first < count { return code.symbols[index + value - first] }
            index += count
            first = (first + count) << 1
            value <<= 1
        }
        throw PNGImage.Failure(description: "a code that is in no table")
    }

    mutating func inflate() throws -> [UInt8] {
        var last = 0
        repeat {
            last = try bits(1)
            switch try bits(2) {
            case 0: try stored()
            case 1:
                let literals = try Huffman(
                    lengths: [Int](repeating: 8, count: 144) + [Int](repeating: 9, count: 112)
                        + [Int](repeating: 7, count: 24) + [Int](repeating: 8, count: 8))
                try block(literals, try Huffman(lengths: [Int](repeating: 5, count: 30)))
            case 2: try dynamic()
            default: throw PNGImage.Failure(description: "a block of reserved type 3")
            }
        } while last == 0
        return output
    }

    private mutating func stored() throws {
        bitBuffer = 0
        bitCount = 0
        guard position + 4 <= input.count else { throw PNGImage.Failure(description: "a stored block ends early") }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        position += 4
        guard position + length <= input.count else { throw PNGImage.Failure(description: "a stored block ends early") }
        output += input[position..<position + length]
        position += length
    }

    private mutating func dynamic() throws {
        let literalCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeLengthCount = try bits(4) + 4
        var codeLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeLengthCount { codeLengths[Self.codeLengthOrder[index]] = try bits(3) }
        let codeLengthCode = try Huffman(lengths: codeLengths)
        var lengths: [Int] = []
        while lengths.count < literalCount + distanceCount {
            let symbol = try decode(codeLengthCode)
            switch symbol {
            case 0..<16: lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw PNGImage.Failure(description: "a repeat with nothing before it") }
                lengths += [Int](repeating: previous, count: 3 + (try bits(2)))
            case 17: lengths += [Int](repeating: 0, count: 3 + (try bits(3)))
            default: lengths += [Int](repeating: 0, count: 11 + (try bits(7)))
            }
        }
        guard lengths.count == literalCount + distanceCount else { throw PNGImage.Failure(description: "code lengths overrun") }
        try block(try Huffman(lengths: Array(lengths[..<literalCount])), try Huffman(lengths: Array(lengths[literalCount...])))
    }

    private mutating func block(_ literals: Huffman, _ distances: Huffman) throws {
        while true {
            let symbol = try decode(literals)
            if symbol < 256 {
                output.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let index = symbol - 257
                guard index < Self.lengthBase.count else { throw PNGImage.Failure(description: "length symbol \(symbol)") }
                let length = Self.lengthBase[index] + (try bits(Self.lengthExtra[index]))
                let code = try decode(distances)
                guard code < Self.distanceBase.count else { throw PNGImage.Failure(description: "distance symbol \(code)") }
                let distance = Self.distanceBase[code] + (try bits(Self.distanceExtra[code]))
                guard distance <= output.count else { throw PNGImage.Failure(description: "a distance before the start") }
                let start = output.count - distance
                for offset in 0..<length { output.append(output[start + offset]) }
            }
        }
    }
}
