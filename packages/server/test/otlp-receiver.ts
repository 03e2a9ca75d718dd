import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/** A span as the receiver decoded it, from JSON or protobuf alike. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client (OTLP's `SpanKind`). */
  kind: number;
  attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The resource's attributes (`service.name`…). */
  resource: Record<string, unknown>;
  /** The spans it links to (hex ids). */
  links: { traceId: string; spanId: string }[];
  /** Its events (`exception`…), each with its attributes. */
  events: { name: string; attributes: Record<string, unknown> }[];
}

/** An OTLP/HTTP trace receiver in the test: what the exporter sent, decoded, and by which encoding. */
export interface OtlpReceiver extends AsyncDisposable {
  /** `http://127.0.0.1:port`: the `OTEL_EXPORTER_OTLP_ENDPOINT` (requests go to `/v1/traces`). */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** The content types of the requests received. */
  readonly contentTypes: string[];
}

/** The part of the OTLP trace protocol the receiver reads (opentelemetry-proto, trace/v1 and common/v1). */
const OTLP_TRACE_PROTO = `
syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { Scope scope = 1; repeated Span spans = 2; }
message Scope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5;
  int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; repeated Event events = 11; repeated Link links = 13; Status status = 15;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Link { bytes trace_id = 1; bytes span_id = 2; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
`;

const requestType = protobuf
  .parse(OTLP_TRACE_PROTO, { keepCase: false })
  .root.lookupType('ExportTraceServiceRequest');

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface DecodedSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: KeyValue[];
  status?: { code?: number };
  links?: { traceId?: string; spanId?: string }[];
  events?: { name?: string; attributes?: KeyValue[] }[];
}
interface DecodedRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { spans?: DecodedSpan[] }[];
  }[];
}

function valueOf(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

/** Both encodings' requests as one shape: protobuf ids as hex, JSON's already are. */
function spansOf(request: DecodedRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) =>
    (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId ?? '',
        spanId: span.spanId ?? '',
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind ?? 0,
        attributes: attributesOf(span.attributes),
        statusCode: span.status?.code ?? 0,
        resource: attributesOf(resourceSpans.resource?.attributes),
        links: (span.links ?? []).map((link) => ({
          traceId: link.traceId ?? '',
          spanId: link.spanId ?? '',
        })),
        events: (span.events ?? []).map((event) => ({
          name: event.name ?? '',
          attributes: attributesOf(event.attributes),
        })),
      })),
    ),
  );
}

function decode(body: Buffer, contentType: string): DecodedRequest {
  if (contentType.includes('json')) return JSON.parse(body.toString('utf8')) as DecodedRequest;
  const message = requestType.decode(body);
  return requestType.toObject(message, {
    longs: Number,
    enums: Number,
    bytes: String,
    oneofs: false,
  });
}

/** Base64 ids (protobufjs `bytes: String`) to hex, as JSON carries them. */
function hexIds(request: DecodedRequest): DecodedRequest {
  for (const resourceSpans of request.resourceSpans ?? [])
    for (const scope of resourceSpans.scopeSpans ?? [])
      for (const span of scope.spans ?? []) {
        for (const key of ['traceId', 'spanId', 'parentSpanId'] as const) {
          const id = span[key];
          if (id) span[key] = Buffer.from(id, 'base64').toString('hex');
        }
        for (const link of span.links ?? []) {
          for (const key of ['traceId', 'spanId'] as const) {
            const id = link[key];
            if (id) link[key] = Buffer.from(id, 'base64').toString('hex');
          }
        }
      }
  return request;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts a receiver on a free loopback port that answers every export with 200 and an empty success. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = createServer((request, response) => {
    void bodyOf(request).then((body) => {
      const contentType = request.headers['content-type'] ?? '';
      contentTypes.push(contentType);
      const decoded = decode(body, contentType);
      spans.push(...spansOf(contentType.includes('json') ? decoded : hexIds(decoded)));
      response
        .writeHead(200, { 'content-type': contentType })
        .end(contentType.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    [Symbol.asyncDispose]: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
