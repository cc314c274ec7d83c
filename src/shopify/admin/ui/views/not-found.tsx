import { Button, EmptyState, Page } from '@shopify/polaris';
import { navigate } from '../navigation.tsx';

export function NotFoundView() {
  return (
    <Page title="Not found">
      <EmptyState heading="This page does not exist" image="">
        <Button onClick={() => navigate('/')}>Go to Doorstep's home</Button>
      </EmptyState>
    </Page>
  );
}
