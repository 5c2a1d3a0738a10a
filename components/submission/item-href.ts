/** An item's page address and its policy note: shared by the item table (rendered in the browser bundle too) and the server pages. */
import type { ItemRow } from "@/lib/queries/types";

export function itemHref(submissionId: number, row: Pick<ItemRow, "capability" | "uuid">, query = ""): string {
  return `/submissions/${submissionId}/items/${encodeURIComponent(row.capability)}/${encodeURIComponent(row.uuid)}${query}`;
}

/** What the policy stage said, where the capability has policies and the outcome does not already say it. */
export function policyNote(row: Pick<ItemRow, "policy">, hasPolicies: boolean): string | null {
  if (!hasPolicies) return null;
  if (row.policy === "unchecked") return "Policy unchecked (its text maps to no rule)";
  if (row.policy === "pass") return "Policy kept";
  return null;
}
