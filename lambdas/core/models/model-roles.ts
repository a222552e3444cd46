import * as z from "../zod";

import { MODEL_ROLES, type ModelRole } from "./model-role-names";

export { MODEL_ROLES, type ModelRole };
export const ModelRoleSchema = /* @__PURE__ */ z.lazySchema(() => z.enum(MODEL_ROLES));
