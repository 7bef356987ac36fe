package api

import (
	"embed"
	"net/http"
	"path"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/kisa-dev/kisa"
)

// reference holds the browsable reference page: Redoc 2.5.4's standalone
// bundle from the npm registry (MIT; its licences beside it), the page and
// the script that starts it. It is committed once; do not re-commit
// changed copies of the bundle.
//
//go:embed reference
var reference embed.FS

// docsCSP keeps the reference page to this origin: scripts, styles (Redoc
// injects its own), the document it fetches, and its search worker.
const docsCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; " +
	"object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// docsAssetTypes are the files under /docs/assets and their types.
var docsAssetTypes = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".txt": "text/plain; charset=utf-8",
}

// serveOpenAPI answers GET /v1/openapi.json with the document.
func (s *Server) serveOpenAPI(c *gin.Context) {
	if s.openapiErr != nil {
		s.writeError(c, s.openapiErr)
		return
	}
	c.Data(http.StatusOK, "application/json; charset=utf-8", s.openapiJSON)
}

// docsPage answers GET /docs: the page that renders the document.
func (s *Server) docsPage(c *gin.Context) {
	b, err := reference.ReadFile("reference/index.html")
	if err != nil {
		s.writeError(c, err)
		return
	}
	c.Header("Content-Security-Policy", docsCSP)
	c.Data(http.StatusOK, "text/html; charset=utf-8", b)
}

// docsAsset answers GET /docs/assets/:file with a file of the page.
func (s *Server) docsAsset(c *gin.Context) {
	name := c.Param("file")
	typ, ok := docsAssetTypes[path.Ext(name)]
	b, err := reference.ReadFile("reference/" + name)
	if !ok || err != nil || strings.Contains(name, "/") {
		s.writeError(c, kisa.Failf(kisa.NotFound, "no such file"))
		return
	}
	c.Header("Cache-Control", "public, max-age=3600")
	c.Data(http.StatusOK, typ, b)
}
