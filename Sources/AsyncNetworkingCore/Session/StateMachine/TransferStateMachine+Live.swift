import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The payload types the ``SessionManager`` runs its transfers' state machines with: the head
/// is the seam's native ``ResponseHead`` (an `HTTPURLResponse` is made only where a public API
/// hands one out).
enum LiveTransferPayload: TransferMachinePayload {
    typealias Request = URLRequest
    typealias Head = ResponseHead
    typealias Body = Data
    typealias Failure = NetworkingError

    /// The chunk's length.
    static func byteCount(of body: Data) -> Int64 { Int64(body.count) }
}

/// The state machine of one live transfer.
typealias LiveTransferStateMachine = TransferStateMachine<LiveTransferPayload>
