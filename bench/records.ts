// The two record shapes of an evaluation set, shared by the real loader and the synthetic generator.

/** One line of a tools JSONL file (`{id,name,description,whenToUse?}`; extra fields ignored). */
export interface ToolRecord {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly whenToUse?: string;
}

/** One labelled query; `relevant` holds skill names or ids, `[]` means nothing should be suggested. */
export interface LabelledQuery {
  readonly id: string;
  readonly query: string;
  readonly relevant: readonly string[];
}
