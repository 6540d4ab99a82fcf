// The official TypeScript SDK client: progress on a long call, and an approval-1 call the
// server asks about through elicitation (accepted once, declined once).
// Usage: node protocol.mjs URL TOKEN — prints one JSON line.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, token] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "facade-ts-protocol", version: "1.0.0" }, { capabilities: { elicitation: {} } });
const asked = [];
let answer = "accept";
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked.push(request.params.message);
  return answer === "accept" ? { action: "accept", content: {} } : { action: answer };
});
await client.connect(transport);
const progress = [];
await client.callTool({ name: "test_tool_with_progress", arguments: {} }, CallToolResultSchema, {
  onprogress: (p) => progress.push(p),
});
const stamped = await client.callTool({ name: "conformance.stamp", arguments: { label: "from-typescript" } });
answer = "decline";
const declined = await client.callTool({ name: "conformance.stamp", arguments: { label: "never" } });
console.log(JSON.stringify({ progress, asked, stamped: stamped.structuredContent?.stamped, declined_is_error: declined.isError === true }));
await client.close();
process.exit(0);
