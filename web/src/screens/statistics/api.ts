import { typedCall } from "../../api/client.ts";

/** The statistics area's typed call (the route is in web/src/api/endpoints/statistics.ts). */
const none = {} as never;

export const statisticsApi = {
  get: (minCount: number) => typedCall("statistics", none, { query: { minCount: minCount || undefined } }),
};
