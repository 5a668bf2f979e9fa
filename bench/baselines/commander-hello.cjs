// Baseline of the start-up figures: a commander hello-world with one subcommand, as its
// README writes it (CommonJS, no bundling, no cache of our own).
const { Command } = require('commander');

const program = new Command();
program.name('hello').description('Say hello').version('1.0.0');
program
  .command('greet')
  .description('Greet someone')
  .argument('<name>', 'who to greet')
  .option('-l, --loud', 'shout')
  .action((name, options) => {
    const text = `Hello, ${name}!`;
    console.log(options.loud ? text.toUpperCase() : text);
  });
program.parse();
