// The SDK's own message classes. Its JSON helpers (historyToJSON and historyFromJSON in @temporalio/common)
// fail here with "type must be a Type": @grpc/proto-loader keeps protobufjs 7 at the top of node_modules,
// so each @temporalio package gets a protobufjs 8 of its own, and those helpers check the message type of
// @temporalio/proto against their own copy. The message classes convert without that check.
// @temporalio/proto comes with @temporalio/client and the worker, at their version.
import proto from '@temporalio/proto';

const HistoryMessage = proto.temporal.api.history.v1.History;
type History = proto.temporal.api.history.v1.IHistory;

/** A workflow history as readable JSON: enum names, 64-bit numbers as strings, payloads in base64. */
export function historyToJson(history: History): string {
  const object = HistoryMessage.toObject(HistoryMessage.fromObject(history), { longs: String, enums: String, bytes: String });
  return `${JSON.stringify(object, null, 2)}\n`;
}

/** The history `historyToJson` wrote, as the message the replayer takes. */
export function historyFromJson(json: string): History {
  return HistoryMessage.fromObject(JSON.parse(json) as Record<string, unknown>);
}
