import AsyncNetworking
@testable import AsyncNetworkingCore

/// Strings for every payload, so the state machine's tests need no network objects.
enum StringPayload: TransferMachinePayload {
    typealias Request = String
    typealias Head = String
    typealias Body = String
    typealias Failure = String

    /// UTF-8 length.
    static func byteCount(of body: String) -> Int64 { Int64(body.utf8.count) }
}

/// The machine under test.
typealias TSM = TransferStateMachine<StringPayload>

/// Shorthands shared by the table and the scenarios.
enum TSMFixtures {
    /// An earlier attempt's identifier.
    static let old = TransferAttemptID(rawValue: 1)
    /// The current attempt in the table's phases.
    static let current = TransferAttemptID(rawValue: 2)
    /// The attempt a new start gets.
    static let next = TransferAttemptID(rawValue: 3)

    /// The current attempt's record.
    static func attempt(
        _ id: TransferAttemptID = current, head: Bool = false, bytes: Int64 = 0, refused: Bool = false, ended: Bool = false
    ) -> TSM.Attempt {
        TSM.Attempt(id: id, hasHead: head, bytesReceived: bytes, challengeRefused: refused, ended: ended)
    }

    /// A body action as the list of actions the shell would perform.
    static func actions(_ body: TSM.BodyAction) -> [TSM.Action] {
        switch body {
        case .deliver(let chunk): return [.deliverBody(chunk)]
        case .held, .ignore: return []
        case .actions(let actions): return actions
        }
    }
}

/// Drives a machine through a scenario the way the shell would, recording every action and
/// replaying held events as ``TransferStateMachine/Action/replay(_:_:)`` asks.
struct TSMDriver {
    var machine: TSM
    /// Every action performed so far, replays expanded.
    var log: [TSM.Action] = []

    /// A driver for a new transfer.
    init(held: Bool = false, configuration: TSM.Configuration = TSM.Configuration()) {
        machine = TSM(request: "R1", held: held, configuration: configuration)
    }

    /// Applies one input and performs what it returns; returns those actions (replays expanded).
    @discardableResult
    mutating func run(_ input: (inout TSM) -> [TSM.Action]) -> [TSM.Action] {
        perform(input(&machine))
    }

    /// Applies a body.
    @discardableResult
    mutating func body(_ id: TransferAttemptID, _ chunk: String) -> [TSM.Action] {
        run { TSMFixtures.actions($0.attemptReceivedBody(id, chunk)) }
    }

    private mutating func perform(_ actions: [TSM.Action]) -> [TSM.Action] {
        var done: [TSM.Action] = []
        for action in actions {
            done.append(action)
            log.append(action)
            if case .replay(let id, let events) = action {
                for event in events { done += perform(machine.replay(id, event)) }
            }
        }
        return done
    }
}

extension TSMDriver {
    /// A driver whose first attempt (#1, "R1") is running: `start()` and `admitted()` applied, with
    /// the actions each returned, for the tests to check.
    static func running(
        _ configuration: TSM.Configuration = TSM.Configuration()
    ) -> (driver: TSMDriver, start: [TSM.Action], admitted: [TSM.Action]) {
        var driver = TSMDriver(configuration: configuration)
        let start = driver.run { $0.start() }
        let admitted = driver.run { $0.admitted() }
        return (driver, start, admitted)
    }
}

/// The attempts of a scenario, by number: #1 is the transfer's first, each restart gets the next.
protocol TSMAttempts {}

extension TSMAttempts {
    var one: TransferAttemptID { TransferAttemptID(rawValue: 1) }
    var two: TransferAttemptID { TransferAttemptID(rawValue: 2) }
    var three: TransferAttemptID { TransferAttemptID(rawValue: 3) }
}
