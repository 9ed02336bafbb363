/** The work module: a person's home page, composed from what each module says waits for them. */
export { myWork, type WorkView, type WorkItem, type WorkKind } from "./work.ts";
