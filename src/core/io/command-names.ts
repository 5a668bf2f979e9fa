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
  },
  products: {
    list: {},
    get: {},
  },
  wallets: {
    list: {},
  },
  orders: {
    create: {},
    get: {},
    list: {},
    wait: {},
    cancel: {},
    codes: {},
  },
  transactions: {
    list: {},
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
