import AnfetchKit
import Foundation

// anfetch: downloads URLs with live progress. Everything is in AnfetchKit; see `anfetch --help`.
let arguments = Array(CommandLine.arguments.dropFirst())
let program = CommandLine.arguments.first.map { $0.contains("/") ? $0 : "anfetch" } ?? "anfetch"
exit(await Anfetch.main(arguments, program: program))
