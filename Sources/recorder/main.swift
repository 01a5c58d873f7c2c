#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Every subcommand, in the order `recorder --help` lists them.
let commands: [any RecorderCommand.Type] = [
  DecodeCommand.self,
  DemoCommand.self,
  ExportCommand.self,
  EmulateCommand.self,
  ListCommand.self,
  PassiveCommand.self,
  InfoCommand.self,
  ScanCommand.self,
  SyncCommand.self,
  RecordCommand.self, SettingsCommand.self,
  OTACommand.self, BindCommand.self, UnbindCommand.self, RecoverCommand.self, TokenCommand.self,
]

let code = await runCommandLine(commands, arguments: Array(CommandLine.arguments.dropFirst()))
exit(code.rawValue)
