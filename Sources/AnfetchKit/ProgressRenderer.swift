import Foundation

/// Turns a ``ProgressSnapshot`` into the lines of the live display: one per active transfer and a
/// total line, each fitted to the terminal's width. A pure function: no terminal, no clock.
///
/// A line is `name  42% [#####-----]  12.3 MiB / 29.0 MiB  4.1 MiB/s  ETA 0:04  note`; when the
/// size is unknown, the bytes so far replace the percentage and there is no bar nor ETA. When the
/// width is short, the bar goes first, then the note, the ETA, the sizes and the rate; the name is
/// cut in its middle (keeping its extension); no line is ever wider than `width`.
public enum ProgressRenderer {
    /// The lines for `snapshot` on a terminal `width` columns wide and `height` lines high (when
    /// known): with more transfers than fit, the first ones are shown and a line says how many more
    /// run, so the display never scrolls (which would break redrawing in place).
    public static func lines(for snapshot: ProgressSnapshot, width: Int, height: Int? = nil) -> [String] {
        let width = max(1, width)
        let total = totalRow(snapshot)
        var shown = snapshot.active.map(row)
        if let height, shown.count + 1 > max(2, height - 1) {
            let keep = max(0, height - 3)  // room for "+N more", the total, and the cursor's line
            let hidden = shown.count - keep
            shown = Array(shown.prefix(keep))
            shown.append(Row(name: "+\(hidden) more", amount: "", fraction: nil, sizes: nil, rate: nil, eta: nil, note: nil))
        }
        let rows = shown + [total]
        let longest = rows.map { Formatting.columns($0.name) }.max() ?? 0
        let nameColumn = min(max(longest, 8), 32, max(8, width / 3))
        // One bar width for every line, so the bars line up: the narrowest room any line leaves.
        let barWidth = sharedBarWidth(rows, nameColumn: nameColumn, width: width)
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
        if transfer.connecting {
            return Row(name: transfer.name, amount: "…", fraction: nil, sizes: nil, rate: nil, eta: nil,
                       note: transfer.note.map { "\($0), connecting" } ?? "connecting")
        }
        let fraction = transfer.fraction
        let amount = fraction.map { "\(Int(min(100, max(0, ($0 * 100).rounded(.down)))))%" } ?? Formatting.bytes(transfer.completedBytes)
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
            // The whole rate may not carry over (servers often limit each connection): never promise
            // less than the slowest active transfer needs.
            let slowest = snapshot.active.compactMap(\.secondsLeft).max() ?? 0
            secondsLeft = max(Double(max(0, expected - snapshot.completedBytes)) / rate, slowest)
        }
        return Row(
            name: "total \(done)/\(snapshot.totalCount)",
            amount: fraction.map { "\(Int(min(100, max(0, ($0 * 100).rounded(.down)))))%" } ?? Formatting.bytes(snapshot.completedBytes),
            fraction: fraction,
            sizes: snapshot.expectedBytes.map { "\(Formatting.bytes(snapshot.completedBytes)) / \(Formatting.bytes($0))" },
            rate: snapshot.bytesPerSecond.map(Formatting.rate) ?? "",
            eta: fraction == nil ? nil : "ETA \(Formatting.duration(secondsLeft))",
            note: notes.joined(separator: ", ")
        )
    }

    /// The richest layout of `row` that fits `width`: every field, then without the bar, the ETA,
    /// the sizes, the rate. The note goes last, cut to the room left.
    static func render(_ row: Row, nameColumn: Int, width: Int, barWidth: Int? = nil) -> String {
        let layouts: [(bar: Bool, eta: Bool, sizes: Bool, rate: Bool)] = [
            (true, true, true, true), (false, true, true, true), (false, false, true, true),
            (false, false, false, true), (false, false, false, false),
        ]
        for layout in layouts {
            if layout.bar && (row.fraction == nil || barWidth == nil) { continue }
            var tail = fields(row, eta: layout.eta, sizes: layout.sizes, rate: layout.rate)
            var room = width - Formatting.columns(tail.joined(separator: "  ")) - 2  // two spaces after the name
            if layout.bar, let barWidth {
                guard room - nameColumn - barWidth - 4 >= 0 else { continue }  // "[" + "]" + two spaces
                tail.insert(bar(row.fraction ?? 0, width: barWidth), at: 1)
                room -= barWidth + 4
            }
            guard room >= min(nameColumn, 8) || !layout.rate else { continue }
            let nameWidth = max(0, min(nameColumn, room))
            var line = Formatting.pad(Formatting.fit(row.name, width: nameWidth), to: nameWidth) + "  " + tail.joined(separator: "  ")
            line = Formatting.fit(line.trimmingTrailingSpaces(), width: width)
            let left = width - Formatting.columns(line) - 2
            if let note = row.note, !note.isEmpty, left >= 5 {
                line += "  " + Formatting.fitEnd(note, width: left)
            }
            return line
        }
        return Formatting.fit(row.name, width: width)
    }

    /// The amount, then the chosen fields, padded into columns.
    static func fields(_ row: Row, eta: Bool, sizes: Bool, rate: Bool) -> [String] {
        var tail = [Formatting.padLeft(row.amount, to: row.fraction == nil ? 10 : 4)]
        if sizes, let text = row.sizes { tail.append(Formatting.padLeft(text, to: 19)) }
        if rate, let text = row.rate { tail.append(Formatting.padLeft(text, to: 11)) }
        if eta, let text = row.eta { tail.append(Formatting.pad(text, to: 11)) }
        return tail
    }

    /// The bar width every line gets: as wide as the line with the least room allows with its note
    /// (10 to 30 cells), or `nil` when some line with a bar has no room for 10 cells even without it.
    static func sharedBarWidth(_ rows: [Row], nameColumn: Int, width: Int) -> Int? {
        var shared = 30
        for row in rows where row.fraction != nil {
            let fixed = Formatting.columns(fields(row, eta: true, sizes: true, rate: true).joined(separator: "  "))
            let withoutNote = width - fixed - 2 - nameColumn - 4
            guard withoutNote >= 10 else { return nil }
            let note = row.note.map { min(Formatting.columns($0), 12) + 2 } ?? 0  // a long note is cut rather than shrink every bar
            shared = min(shared, max(10, withoutNote - note))
        }
        return shared
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
