-- A minimal Neovim (0.7 or newer) set-up that runs yaml-language-server on
-- YAML files, as docs/editing.md describes; capture.sh uses it to show
-- completion and diagnostics in a real editor. Set STRATA_YAMLLS to the
-- server's path (default: build/npm/ under the current directory).
local server = os.getenv('STRATA_YAMLLS')
  or (vim.fn.getcwd() .. '/build/npm/node_modules/yaml-language-server/bin/yaml-language-server')
local settings = { yaml = { validate = true, hover = true, completion = true, schemaStore = { enable = false } } }

vim.o.completeopt = 'menuone,noinsert'
vim.o.shortmess = vim.o.shortmess .. 'c'
vim.diagnostic.config({ virtual_text = true, signs = false, underline = false })

local client = vim.lsp.start_client({
  name = 'yamlls',
  cmd = { 'node', server, '--stdio' },
  root_dir = vim.fn.getcwd(),
  settings = settings,
  on_init = function(c)
    c.notify('workspace/didChangeConfiguration', { settings = settings })
  end,
})

vim.api.nvim_create_autocmd('FileType', {
  pattern = 'yaml',
  callback = function(args)
    vim.lsp.buf_attach_client(args.buf, client)
    vim.bo[args.buf].omnifunc = 'v:lua.vim.lsp.omnifunc'
  end,
})
