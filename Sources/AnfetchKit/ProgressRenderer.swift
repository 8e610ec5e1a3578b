import Foundation

/// Turns a ``ProgressSnapshot`` into the lines of the live display: one per active transfer and a
/// total line, each fitted to the terminal's width. A pure function: no terminal, no clock.
///
/// A line is `name  42% [#####-----]  12.3 MiB / 29.0 MiB  4.1 MiB/s  ETA 0:04  note`; when the
/// size is unknown, the bytes so far replace the percentage and there is no bar nor ETA. When the
/// width is short, the bar goes first, then the note, the ETA, the sizes and the rate; the name is
/// cut in its middle (keeping its extension); no line is ever wider than `width`.
public enum ProgressRenderer {
    /// The lines for `snapshot` on a terminal `width` columns wide.
    public static func lines(for snapshot: ProgressSnapshot, width: Int) -> [String] {
        let width = max(1, width)
        let total = totalRow(snapshot)
        let rows = snapshot.active.map(row) + [total]
        let longest = rows.map { Formatting.columns($0.name) }.max() ?? 0
        let nameColumn = min(max(longest, 8), 32, max(8, width / 3))
        // One bar width for every line, so the bars line up: the narrowest room any line leaves.
        let barWidth = rows.compactMap { barRoom($0, nameColumn: nameColumn, width: width) }.min()
        return rows.map { render($0, nameColumn: nameColumn, width: width, barWidth: barWidth) }
    }

    /// The fields of one line.
    struct Row {
        var name: String
        var amount: String            // "42%" or "8.0 MiB"
        var fraction: Double?         // bar; nil = no bar
        var sizes: String?            // "12.3 MiB / 29.0 MiB"
        var rate: String?
        var eta: String?
        var note: String?
    }

    static func row(_ transfer: ProgressSnapshot.Transfer) -> Row {
        let fraction = transfer.fraction
        let amount = fraction.map { "\(Int(($0 * 100).rounded(.down)))%" } ?? Formatting.bytes(transfer.completedBytes)
        return Row(
            name: transfer.name, amount: amount, fraction: fraction,
            sizes: transfer.expectedBytes.map { "\(Formatting.bytes(transfer.completedBytes)) / \(Formatting.bytes($0))" },
            rate: transfer.bytesPerSecond.map(Formatting.rate) ?? "",
            eta: fraction == nil ? nil : "ETA \(Formatting.duration(transfer.secondsLeft))",
            note: transfer.note
        )
    }

    static func totalRow(_ snapshot: ProgressSnapshot) -> Row {
        let done = snapshot.succeededCount + snapshot.failedCount
        var fraction: Double?
        if let expected = snapshot.expectedBytes {
            fraction = expected > 0 ? min(1, Double(snapshot.completedBytes) / Double(expected)) : 1
        }
        var notes: [String] = []
        if snapshot.failedCount > 0 { notes.append("\(snapshot.failedCount) failed") }
        if snapshot.waitingCount > 0 { notes.append("\(snapshot.waitingCount) waiting") }
        notes.append(Formatting.duration(snapshot.elapsed))
        var secondsLeft: Double?
        if let expected = snapshot.expectedBytes, let rate = snapshot.bytesPerSecond, rate > 0 {
            secondsLeft = Double(max(0, expected - snapshot.completedBytes)) / rate
        }
        return Row(
            name: "total \(done)/\(snapshot.totalCount)",
            amount: fraction.map { "\(Int(($0 * 100).rounded(.down)))%" } ?? Formatting.bytes(snapshot.completedBytes),
            fraction: fraction,
            sizes: snapshot.expectedBytes.map { "\(Formatting.bytes(snapshot.completedBytes)) / \(Formatting.bytes($0))" },
            rate: snapshot.bytesPerSecond.map(Formatting.rate) ?? "",
            eta: fraction == nil ? nil : "ETA \(Formatting.duration(secondsLeft))",
            note: notes.joined(separator: ", ")
        )
    }

    /// The richest layout of `row` that fits `width`.
    static func render(_ row: Row, nameColumn: Int, width: Int, barWidth: Int? = nil) -> String {
        // Each step drops one more field: bar, note, ETA, sizes, rate.
        let layouts: [(bar: Bool, note: Bool, eta: Bool, sizes: Bool, rate: Bool)] = [
            (true, true, true, true, true), (false, true, true, true, true), (false, false, true, true, true),
            (false, false, false, true, true), (false, false, false, false, true), (false, false, false, false, false),
        ]
        for layout in layouts {
            var tail: [String] = [Formatting.padLeft(row.amount, to: row.fraction == nil ? 10 : 4)]
            let barSlot = tail.count
            if layout.sizes, let sizes = row.sizes { tail.append(Formatting.padLeft(sizes, to: 21)) }
            if layout.rate, let rate = row.rate { tail.append(Formatting.padLeft(rate, to: 11)) }
            if layout.eta, let eta = row.eta { tail.append(Formatting.pad(eta, to: 11)) }
            if layout.note, let note = row.note, !note.isEmpty { tail.append(note) }
            let fixed = Formatting.columns(tail.joined(separator: "  "))
            var room = width - fixed - 2  // two spaces after the name
            let minimumName = min(nameColumn, 8)
            if layout.bar, row.fraction != nil {
                let barWidth = min(barWidth ?? 30, 30, room - nameColumn - 4)  // "[" + "]" + two spaces
                guard barWidth >= 10 else { continue }
                tail.insert(bar(row.fraction ?? 0, width: barWidth), at: barSlot)
                room -= barWidth + 4
            } else if layout.bar {
                continue  // no bar for an unknown size: the next layout is the same without it
            }
            guard room >= minimumName || layout.rate == false else { continue }
            let name = Formatting.pad(Formatting.fit(row.name, width: max(1, min(nameColumn, room))), to: min(nameColumn, max(room, 0)))
            return Formatting.fit(name + "  " + tail.joined(separator: "  "), width: width).trimmingTrailingSpaces()
        }
        return Formatting.fit(row.name, width: width)
    }

    /// The widest bar `row` has room for in its full layout (at most 30), or `nil` when it has no
    /// bar or too little room for one.
    static func barRoom(_ row: Row, nameColumn: Int, width: Int) -> Int? {
        guard row.fraction != nil else { return nil }
        let tail = [Formatting.padLeft(row.amount, to: 4), row.sizes.map { Formatting.padLeft($0, to: 21) },
                    row.rate.map { Formatting.padLeft($0, to: 11) }, row.eta.map { Formatting.pad($0, to: 11) },
                    row.note.flatMap { $0.isEmpty ? nil : $0 }].compactMap { $0 }
        let room = min(30, width - Formatting.columns(tail.joined(separator: "  ")) - 2 - nameColumn - 4)
        return room >= 10 ? room : nil
    }

    /// `[#########---------]` with `width` cells inside the brackets.
    static func bar(_ fraction: Double, width: Int) -> String {
        let filled = Int((min(1, max(0, fraction)) * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }

    /// One plain line for logs (stdout not a terminal): the totals and each active transfer.
    public static func plainLine(for snapshot: ProgressSnapshot) -> String {
        let total = totalRow(snapshot)
        var text = "progress: \(total.name.dropFirst(6)) done, \(total.amount)"
        if let rate = snapshot.bytesPerSecond { text += ", \(Formatting.rate(rate))" }
        if snapshot.failedCount > 0 { text += ", \(snapshot.failedCount) failed" }
        let active = snapshot.active.map { "\($0.name) \(row($0).amount)" }
        if !active.isEmpty { text += "; active: " + active.joined(separator: ", ") }
        return text
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
