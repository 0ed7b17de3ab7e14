"""The web console in AWS: a private bucket behind CloudFront, which also routes `/api/*` to the REST API (one
origin for the browser, so no CORS), the console's `config.json`, and its sign-in through the Cognito hosted UI
(authorization code + PKCE, a public app client).

What the console is (pages, build) lives in `frontend/`; what the API is, in `infra.rest_api`. This package only hosts
the build output `frontend/dist` and tells it where things are: `site.Console` composes the buckets (`hosting`),
the viewer-request functions and security headers (`edge`), the distribution (`distribution`), the sign-in
(`sign_in`) and the deployment of the files (`content`). Every part builds into the one `Console` construct, so that
the names CloudFront's resources take from their construct paths stay put. The Cognito domain created here is the
pool's hosted UI, which the remote MCP server's OAuth clients sign in through too.

Context keys (all optional):
  consoleDir               the console's build to deploy; default `frontend/dist` (`make console` builds it)
  cognitoDomainPrefix      prefix of the hosted UI (`<prefix>.auth.<region>.amazoncognito.com`); default
                           `<stack name>-<account>`, unique per account, deployment and Region
  consoleLocalDev          true: the console app client also accepts `http://localhost:5173/` (Vite's dev server)
  consoleDomainName        a custom domain for the console, with consoleCertificateArn (ACM, us-east-1); only
                           then can CloudFront refuse TLS below 1.2 (TLSv1.2_2021)
  consoleCertificateArn
  consoleWebAclArn         a WAFv2 web ACL of scope CLOUDFRONT (us-east-1) for the distribution
"""
