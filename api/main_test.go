package api

import (
	"os"
	"testing"

	"github.com/gin-gonic/gin"
)

// TestMain runs gin in test mode: no debug lines for every route of every
// test server (kisa web sets release mode in main).
func TestMain(m *testing.M) {
	gin.SetMode(gin.TestMode)
	os.Exit(m.Run())
}
