// The official TypeScript SDK client: list, ask for an elevation, wait for list_changed, list again.
// Usage: node list_changed.mjs URL TOKEN CONVERSATION — prints one JSON line per step.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, token, conversation] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}`, "X-Conversation-Id": conversation } },
});
const client = new Client({ name: "facade-ts-test", version: "1.0.0" });
let changed = 0;
let heard;
const listChanged = new Promise((resolve) => (heard = resolve));
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  changed += 1;
  heard();
});
await client.connect(transport);
const before = (await client.listTools()).tools.length;
const held = await client.callTool({ name: "skills.elevate", arguments: { domain: "files", reason: "asked from TypeScript" } });
console.log(JSON.stringify({ step: "held", card: held.structuredContent.card_id, before }));
const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("no list_changed within 30 s")), 30000));
await Promise.race([listChanged, timeout]);
const after = (await client.listTools()).tools.length;
console.log(JSON.stringify({ step: "changed", changed, before, after }));
await client.close();
process.exit(0);
