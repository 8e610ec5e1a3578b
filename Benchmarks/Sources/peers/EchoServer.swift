import BenchmarkSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The WebSocket benchmark's peer: an echo server on 127.0.0.1 (a free port) built on SwiftNIO's
/// `NIOWebSocketServerUpgrader`, in the parent process on one event-loop thread.
///
/// Every data frame is written back as it arrives (same opcode and FIN bit, unmasked in place), so
/// fragmented messages come back fragmented the same way; pings get a pong, a close frame is echoed
/// and the connection shut. No aggregation, no copies beyond NIO's own, and unmasking a word at a
/// time, so it is not the bottleneck: the table prints its CPU per message beside the clients'.
final class EchoServer: RunServer {
    /// Frames up to this size are accepted (the benchmark's largest message is 1 MiB, one frame).
    static let maxFrameSize = 16 << 20

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    /// `ws://127.0.0.1:PORT/echo`.
    let url: String

    init() throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: Self.maxFrameSize,
            automaticErrorHandling: true,
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(EchoHandler())
                }
            }
        )
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
                    )
                }
            }
        do {
            channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        url = "ws://127.0.0.1:\(channel.localAddress?.port ?? 0)/echo"
    }

    func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// Echoes every frame of one upgraded connection.
private final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        var payload = frame.data
        if let key = frame.maskKey { Self.unmask(&payload, key: key) }
        switch frame.opcode {
        case .text, .binary, .continuation:
            context.write(wrapOutboundOut(WebSocketFrame(fin: frame.fin, opcode: frame.opcode, data: payload)), promise: nil)
        case .ping:
            context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: payload)), promise: nil)
        case .connectionClose:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)), promise: nil)
            context.close(promise: nil)
        default:
            break
        }
    }

    /// XORs `buffer` with `key` eight bytes at a time (NIO's `webSocketUnmask` goes byte by byte,
    /// which made it most of the server's time for 1 MiB messages).
    private static func unmask(_ buffer: inout ByteBuffer, key: WebSocketMaskingKey) {
        let keyBytes = Array(key)
        let pattern = (keyBytes + keyBytes).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        buffer.withUnsafeMutableReadableBytes { bytes in
            var index = 0
            while index + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                bytes.storeBytes(of: word ^ pattern, toByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < bytes.count {
                bytes[index] ^= keyBytes[index & 3]
                index += 1
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
