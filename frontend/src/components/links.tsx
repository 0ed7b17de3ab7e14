/** In-app links that navigate without a reload (Cloudscape links are plain anchors otherwise). */
import Link, { type LinkProps } from "@cloudscape-design/components/link";
import { useNavigate } from "react-router-dom";

export function RouterLink(props: LinkProps & { href: string }) {
  const navigate = useNavigate();
  return (
    <Link
      {...props}
      onFollow={(event) => {
        event.preventDefault();
        navigate(props.href);
      }}
    />
  );
}
