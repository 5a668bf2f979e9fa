/**
 * The names of every command after `vouchers`, each with the names under it: what the note
 * wrapper (note-wrap.ts) reads as a command's names, to keep them with it, and no word of
 * prose after them. Generated from the CLI by `npm run docs`: do not edit.
 */
export interface CommandTree {
  readonly [name: string]: CommandTree;
}

export const COMMAND_TREE: CommandTree = {
  demo: {},
  profiles: {
    add: {},
    list: {},
    ls: {},
    show: {},
    use: {},
    remove: {},
    rm: {},
    rename: {},
    mv: {},
    set: {},
  },
  certify: {},
  doctor: {},
  listen: {},
  events: {
    list: {},
    ls: {},
    show: {},
    replay: {},
  },
  webhooks: {
    register: {},
    show: {},
    delete: {},
    verify: {},
    sign: {},
  },
  categories: {
    list: {},
    ls: {},
  },
  products: {
    list: {},
    ls: {},
    get: {},
  },
  wallets: {
    list: {},
    ls: {},
  },
  orders: {
    create: {},
    get: {},
    list: {},
    ls: {},
    wait: {},
    cancel: {},
    codes: {},
  },
  transactions: {
    list: {},
    ls: {},
  },
  payouts: {
    create: {},
  },
  reconciliation: {
    get: {},
  },
  completion: {},
  api: {},
  sign: {},
  log: {},
  sandbox: {
    start: {},
    status: {},
    stop: {},
    trigger: {},
    admin: {
      orders: {
        list: {},
        get: {},
      },
      approve: {},
      reject: {},
      complete: {},
      partial: {},
      fail: {},
      fund: {},
      partners: {
        list: {},
        create: {},
      },
      keys: {
        list: {},
        create: {},
        revoke: {},
        rotate: {},
      },
      allowlist: {
        set: {},
      },
      info: {},
      stock: {},
      events: {
        list: {},
      },
      deliveries: {
        list: {},
      },
      redeliver: {},
      'code-accesses': {},
      clock: {
        show: {},
        advance: {},
      },
      drifts: {
        list: {},
        create: {},
        resolve: {},
      },
      reset: {},
    },
  },
};

/** The arguments each command takes before a list, required and optional, by its names (`profiles set`: NAME KEY [VALUE]), where it takes any. */
export const COMMAND_ARGUMENTS: Readonly<Record<string, readonly [required: number, optional: number]>> = {
  'profiles add': [1, 0],
  'profiles show': [0, 1],
  'profiles use': [1, 0],
  'profiles remove': [1, 0],
  'profiles rm': [1, 0],
  'profiles rename': [2, 0],
  'profiles mv': [2, 0],
  'profiles set': [2, 1],
  'events show': [1, 0],
  'products get': [1, 0],
  'orders get': [1, 0],
  'orders wait': [1, 0],
  'orders cancel': [1, 0],
  'orders codes': [1, 0],
  'reconciliation get': [1, 0],
  completion: [0, 1],
  api: [2, 0],
  sign: [2, 0],
  log: [0, 1],
  'sandbox trigger': [1, 0],
  'sandbox admin orders get': [1, 0],
  'sandbox admin approve': [1, 0],
  'sandbox admin reject': [1, 0],
  'sandbox admin complete': [1, 0],
  'sandbox admin partial': [1, 0],
  'sandbox admin fail': [1, 0],
  'sandbox admin keys revoke': [1, 0],
  'sandbox admin keys rotate': [1, 0],
  'sandbox admin allowlist set': [1, 0],
  'sandbox admin redeliver': [1, 0],
  'sandbox admin clock advance': [1, 0],
  'sandbox admin drifts resolve': [1, 0],
};
