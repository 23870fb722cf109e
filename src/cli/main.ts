import { Command } from "commander";
import { registerMigrateCommand } from "./migrate-command.js";
import { registerLoginCommands } from "./login-command.js";
import { registerSessionCommands } from "./sessions-command.js";
import { registerAgentsCommands } from "./agents-command.js";
import { registerDevCommand } from "./dev-command.js";
import { registerIdentitiesCommands } from "./identities-command.js";
import { registerNamespacesCommands } from "./namespaces-command.js";
import { registerPreprovisionedCommands } from "./preprovisioned-command.js";
import { registerProcessCommands } from "./process-commands.js";
import { registerStatusCommand } from "./status-command.js";
import { runCli } from "./run.js";

const program = new Command("occ")
  .description(
    "OCC places each OpenClaw Enterprise tenant in exactly one Kubernetes namespace and keeps its objects inside it.",
  )
  .version("0.1.0")
  // The runtime, so that `occ --help` in the image shows which Node.js release it runs on.
  .addHelpText("after", `\nRuntime: Node.js ${process.version}`);

registerMigrateCommand(program);
registerProcessCommands(program);
registerDevCommand(program);
registerNamespacesCommands(program);
registerAgentsCommands(program);
registerPreprovisionedCommands(program);
registerStatusCommand(program);
registerLoginCommands(program);
registerSessionCommands(program);
registerIdentitiesCommands(program);

await runCli(program, process.argv);
