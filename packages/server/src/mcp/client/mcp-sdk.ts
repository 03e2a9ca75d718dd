/**
 * The MCP SDK's client side, imported when the first MCP server is connected, not at start-up: most servers
 * name no MCP server, and the SDK (its protocol schemas, its transports) is resident memory they would carry
 * for nothing (see docs/decisions.md). Loaded once per process.
 */
async function importClientSdk() {
  const [client, sse, stdio, streamableHttp, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return {
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    SseError: sse.SseError,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
    StreamableHTTPError: streamableHttp.StreamableHTTPError,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
  };
}

/** What Parley uses of the MCP SDK's client side. */
export type McpClientSdk = Awaited<ReturnType<typeof importClientSdk>>;

let loading: Promise<McpClientSdk> | undefined;
let loaded: McpClientSdk | undefined;

/** The SDK's client side, imported on the first call (a failed import is tried again on the next). */
export function loadMcpClientSdk(): Promise<McpClientSdk> {
  loading ??= importClientSdk().then(
    (sdk) => (loaded = sdk),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/**
 * The SDK's client side if it was imported, else undefined: then no error can be one of its classes (every
 * request to an MCP server waits for the import first).
 */
export function loadedMcpClientSdk(): McpClientSdk | undefined {
  return loaded;
}
