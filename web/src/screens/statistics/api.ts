import { typedCall } from "../../api/client.ts";
import type { Statistics } from "../../api/types/statistics.ts";

/** The statistics area's typed call (the route is in web/src/api/endpoints/statistics.ts). */
const none = {} as never;

export const statisticsApi = {
  get: (minCount: number) => typedCall<Statistics>()("statistics", none, { query: { minCount: minCount || undefined } }),
};
