/** The model's name upstream. */
export declare const name: 'potion-base-2M'
/** The absolute path of the model file. */
export declare const path: string
/** The length of its vectors. */
export declare const dimensions: 64
