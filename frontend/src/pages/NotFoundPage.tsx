import Alert from "@cloudscape-design/components/alert";
import Link from "@cloudscape-design/components/link";

export default function NotFoundPage() {
  return (
    <Alert type="warning" header="No such page">
      Nothing lives at this address. Go to <Link href="/clusters">Clusters</Link>.
    </Alert>
  );
}
