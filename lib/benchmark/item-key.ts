/** How a ground-truth item is keyed wherever items are collected: by capability and uuid. */
export const itemKey = (capability: string, uuid: string) => `${capability}\0${uuid}`;
/** An item of one trial: what a run stores once (the unique index is run, capability, uuid, trial). */
export const trialItemKey = (capability: string, uuid: string, trial: number) => `${capability}\0${uuid}\0${trial}`;
