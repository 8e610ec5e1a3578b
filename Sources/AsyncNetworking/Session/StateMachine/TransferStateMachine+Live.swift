import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The payload types the ``SessionManager`` runs its transfers' state machines with.
enum LiveTransferPayload: TransferMachinePayload {
    typealias Request = URLRequest
    typealias Head = HTTPURLResponse
    typealias Body = Data
    typealias Failure = NetworkingError

    /// The chunk's length.
    static func byteCount(of body: Data) -> Int64 { Int64(body.count) }
}

/// The state machine of one live transfer.
typealias LiveTransferStateMachine = TransferStateMachine<LiveTransferPayload>
